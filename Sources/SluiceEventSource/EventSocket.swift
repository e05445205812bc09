import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
// Apple's Combine on Apple's systems; Sluice elsewhere (not `canImport(Combine)` alone: off
// Apple's systems the package's own `Combine` module may be built beside this one).
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

/// A client of a Sluice feed's WebSocket stream (SluiceFeed's `FeedSocketStream`): the same
/// events, resume and demand as ``EventSource``, over a WebSocket.
///
/// ```swift
/// import Foundation
/// import SluiceEventSource
///
/// let feed = EventSocket(url: URL(string: "ws://localhost:8080/ws/prices")!)
/// for try await event in feed.events { print(event) }
/// ```
///
/// **Messages.** A feed's text message `{"id":"…","data":"…"}` is an
/// ``EventSource/Event/event(_:)`` with that id (the last event ID from then on), that data (any
/// JSON value other than a string as its JSON text) and the type its `"event"` names (`message` if
/// none). Its control messages — `{"event":"dropped","dropped":n}`, `{"event":"reset","id":"…","missed":n}`
/// (its `id` is where the client now stands: it resumes after it) and
/// `{"event":"shutdown","reason":"…"}` — are the typed ``EventSource/Event/dropped(count:)``,
/// ``EventSource/Event/reset(missed:)`` and ``EventSource/Event/shutdown(reason:)``. Any other
/// message (a binary one decoded as UTF-8) is an event of type `message` whose data is its text.
///
/// **Reconnecting.** When the stream ends — the server closed it (codes 1000, 1001, or none), or
/// the network failed — the client waits ``EventSource/Configuration/reconnectionTime`` and
/// reconnects, with the last event ID as the `lastEventId` query parameter (a caller's own
/// `lastEventId` in the URL is where the first connection starts). A handshake answered with 408,
/// 429 or 5xx, and a close with 1011, 1012, 1013 ("try again later": a full feed) or 1014, is a
/// failed attempt, retried after a wait that doubles up to ``EventSource/Configuration/maximumBackoff``,
/// with jitter. A handshake answered with 204 finishes the publisher; another status fails it with
/// ``EventSourceError/status(_:)``, any other close code with ``EventSourceError/closed(code:reason:)``,
/// a message over ``EventSource/Configuration/maximumEventSize`` bytes with
/// ``EventSourceError/eventTooLarge(limit:)``. When the stream has been silent for
/// ``EventSource/Configuration/idleTimeout`` the client sends a ping, and takes the connection as
/// lost if one more timeout passes without a byte.
///
/// **Demand.** Events are delivered only as the subscriber requests them, and up to
/// ``EventSource/Configuration/bufferSize`` more are held. When the buffer is full the client stops
/// reading, with the connection open, until the subscriber has taken half of it: the server's own
/// flow control (and a Sluice feed's slow-client policy, which says what it dropped with `dropped`)
/// takes over. Nothing is dropped by the client. While it reads nothing it answers no ping either:
/// a server that closes a socket whose ping goes unanswered (Hummingbird's WebSocket server, by
/// default, after 30 to 60 seconds) closes one whose subscriber paused that long, and the client
/// reconnects and resumes after its last event, as after any lost connection.
///
/// **Where it runs.** On Apple's systems a connection is a `URLSessionWebSocketTask`. Elsewhere, a
/// `ws:` URL is read by the client's own WebSocket implementation on a POSIX socket (one thread
/// per connection). A `wss:` URL is read by the same implementation over a TLS connection of
/// SwiftNIO SSL in a build with the package trait `TLS` (``EventSource/Configuration/tls``: trust
/// roots, client certificate, proxy); without the trait it needs FoundationNetworking's
/// `URLSessionWebSocketTask`, which needs a libcurl built with WebSocket support — without one the
/// publisher fails with ``EventSourceError/webSocketUnavailable`` (build with the trait, or read
/// such a feed with ``EventSource``).
///
/// **Many topics.** Over a Sluice feed's socket of topics (`GET /ws?topic=a…`, SluiceFeed's
/// `FeedSocketTopics`), ``init(url:topics:configuration:session:onConnectionEvent:)`` follows
/// several topics on one connection, and ``subscribe(_:after:)`` and ``unsubscribe(_:)`` change
/// them while it is open. Each event names its topic (``EventSource/Message/topic``, also its
/// type) and carries its id in it (``EventSource/Message/topicEventID``); a reset, a drop or a
/// refusal of one topic is ``EventSource/Event/topicReset(topic:missed:)``,
/// ``EventSource/Event/topicDropped(topic:count:)`` or ``EventSource/Event/topicRefused(topic:reason:)``.
/// When the connection drops, the next one subscribes to every topic again after its last event:
/// each resumes exactly, none twice, on any instance of the feed.
///
/// ```swift
/// import Foundation
/// import SluiceEventSource
///
/// let feed = EventSocket(url: URL(string: "ws://localhost:8080/ws")!, topics: ["orders", "chat"])
/// for try await event in feed.events {
///     guard let message = event.message else { continue }
///     print(message.topic ?? "-", message.topicEventID ?? "-", message.data)
///     if message.topic == "orders" {
///         feed.subscribe("prices")   // topics come and go while the socket is open
///         feed.unsubscribe("chat")
///     }
/// }
/// ```
///
/// **Cancelling** closes the connection at once and drops what is buffered.
public struct EventSocket: Publisher, Sendable {
    /// The values published: events and Sluice's control events.
    public typealias Output = EventSource.Event
    /// Why the publisher fails.
    public typealias Failure = EventSourceError

    /// The handshake request of each connection (its headers, such as `Authorization`, are sent
    /// on every connection; the client sets `lastEventId` in its URL when it resumes).
    public let request: URLRequest
    /// How the client reconnects and buffers (``EventSource/Configuration/maximumEventSize``
    /// bounds a message).
    public let configuration: EventSource.Configuration
    /// The session whose configuration `URLSessionWebSocketTask` connections use (`nil`: the
    /// default configuration).
    public let session: URLSession?
    /// What is told of each subscription's connections — every attempt, failure and resume — as
    /// it happens (`nil`: nothing). See ``EventSource/ConnectionEvent``.
    public let onConnectionEvent: (@Sendable (EventSource.ConnectionEvent) -> Void)?

    /// A client of the WebSocket stream at `url` (`ws:` or `wss:`).
    ///
    /// - Parameters:
    ///   - url: The stream's URL.
    ///   - configuration: How to reconnect and buffer.
    ///   - session: A session whose configuration the `URLSessionWebSocketTask` connections use.
    ///   - onConnectionEvent: Told what each subscription's connections do: each attempt, each
    ///     failed attempt with the wait before the next, each resume
    ///     (``EventSource/ConnectionEvent``). It is called on the connection's thread or a timer's,
    ///     one event at a time, and must not block.
    public init(url: URL, configuration: EventSource.Configuration = EventSource.Configuration(), session: URLSession? = nil,
                onConnectionEvent: (@Sendable (EventSource.ConnectionEvent) -> Void)? = nil) {
        self.init(request: URLRequest(url: url), configuration: configuration, session: session,
                  onConnectionEvent: onConnectionEvent)
    }

    /// A client of the WebSocket stream that `request` opens: its headers are sent on every
    /// connection.
    ///
    /// - Parameters:
    ///   - request: The handshake request.
    ///   - configuration: How to reconnect and buffer.
    ///   - session: A session whose configuration the `URLSessionWebSocketTask` connections use.
    ///   - onConnectionEvent: Told what each subscription's connections do (``EventSource/ConnectionEvent``).
    public init(request: URLRequest, configuration: EventSource.Configuration = EventSource.Configuration(),
                session: URLSession? = nil, onConnectionEvent: (@Sendable (EventSource.ConnectionEvent) -> Void)? = nil) {
        self.init(request: request, topics: [], configuration: configuration, session: session, onConnectionEvent: onConnectionEvent)
    }

    /// A client of a socket of topics at `url` (a Sluice feed's `/ws`), following `topics` from
    /// the present; ``subscribe(_:after:)`` and ``unsubscribe(_:)`` change them at any time.
    ///
    /// - Parameters:
    ///   - url: The socket's URL (`ws:` or `wss:`); `topic` query parameters in it are topics too.
    ///   - topics: The topics to follow (repeats are followed once). With none, and none in `url`,
    ///     this is a socket of one stream, as ``init(url:configuration:session:onConnectionEvent:)``.
    ///   - configuration: How to reconnect and buffer.
    ///   - session: A session whose configuration the `URLSessionWebSocketTask` connections use.
    ///   - onConnectionEvent: Told what each subscription's connections do (``EventSource/ConnectionEvent``).
    public init(url: URL, topics: [String], configuration: EventSource.Configuration = EventSource.Configuration(),
                session: URLSession? = nil, onConnectionEvent: (@Sendable (EventSource.ConnectionEvent) -> Void)? = nil) {
        self.init(request: URLRequest(url: url), topics: topics, configuration: configuration, session: session,
                  onConnectionEvent: onConnectionEvent)
    }

    /// A client of a socket of topics that `request` opens (its headers are sent on every
    /// connection), following `topics` (see ``init(url:topics:configuration:session:onConnectionEvent:)``).
    ///
    /// - Parameters:
    ///   - request: The handshake request; `topic` query parameters in its URL are topics too.
    ///   - topics: The topics to follow.
    ///   - configuration: How to reconnect and buffer.
    ///   - session: A session whose configuration the `URLSessionWebSocketTask` connections use.
    ///   - onConnectionEvent: Told what each subscription's connections do (``EventSource/ConnectionEvent``).
    public init(request: URLRequest, topics: [String], configuration: EventSource.Configuration = EventSource.Configuration(),
                session: URLSession? = nil, onConnectionEvent: (@Sendable (EventSource.ConnectionEvent) -> Void)? = nil) {
        var request = request
        var topics = topics
        if let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
           let items = components.queryItems, items.contains(where: { $0.name == "topic" }) {
            topics = items.filter { $0.name == "topic" }.compactMap(\.value) + topics
            let rest = items.filter { $0.name != "topic" }
            components.queryItems = rest.isEmpty ? nil : rest
            request.url = components.url ?? url
        }
        self.request = request
        self.configuration = configuration
        self.session = session
        self.onConnectionEvent = onConnectionEvent
        followed = topics.isEmpty ? nil : EventSocketTopics(topics)
    }

    /// What a socket of topics follows, shared by its copies and told to their connections.
    let followed: EventSocketTopics?

    /// The topics a socket of topics follows now, in the order they were asked for (empty for a
    /// socket of one stream). Each subscription starts with these.
    public var topics: [String] { followed?.topics ?? [] }

    /// Follows `topic` too, on every open subscription of this socket (and its copies) and on
    /// those made later: the server is told at once if the connection is open, else when it
    /// opens. Its events come from the present, or after the event `after` of it (an id
    /// ``EventSource/Message/topicEventID`` gave, from any instance of the feed) — what was missed
    /// first, or ``EventSource/Event/topicReset(topic:missed:)`` when that is gone. Nothing
    /// happens for a topic already followed, or on a socket of one stream.
    ///
    /// - Parameters:
    ///   - topic: The topic's name.
    ///   - after: The id of the last event of it the caller has (`nil`: from the present).
    public func subscribe(_ topic: String, after: String? = nil) {
        followed?.subscribe(topic, after: after)
    }

    /// Stops following `topic` on every subscription of this socket: nothing more of it is
    /// published, and reconnections do not follow it. Nothing happens for a topic not followed.
    ///
    /// - Parameter topic: The topic's name.
    public func unsubscribe(_ topic: String) {
        followed?.unsubscribe(topic)
    }

    /// Attaches `subscriber`: a new connection, opened at its first demand.
    ///
    /// - Parameter subscriber: The subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == EventSource.Event, S.Failure == EventSourceError {
        guard isValid else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: .failure(.invalidRequest))
            return
        }
        let consumer = EventSourceConsumer(receive: { subscriber.receive($0) }, complete: { subscriber.receive(completion: $0) })
        subscriber.receive(subscription: EventSocketConnector.driver(for: self, consumer: consumer))
    }

    /// The events as an `AsyncSequence`: each iterator is a connection of its own, which asks for
    /// one event per call of `next()` and buffers up to ``EventSource/Configuration/bufferSize``.
    /// The sequence ends when the publisher would finish, throws an ``EventSourceError`` when it
    /// would fail, and ends (closing the connection) when the iterating task is cancelled.
    public var events: Events { Events(socket: self) }

    /// Whether the request can be made: a `ws:` or `wss:` URL with a host.
    var isValid: Bool {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), url.host != nil else { return false }
        return scheme == "ws" || scheme == "wss"
    }

    /// An ``EventSocket``'s events as an `AsyncSequence` (see ``EventSocket/events``).
    public struct Events: AsyncSequence, Sendable {
        /// The values: events and Sluice's control events.
        public typealias Element = EventSource.Event

        /// The socket iterated.
        public let socket: EventSocket

        /// A new iterator: a connection of its own, opened at its first `next()`.
        public func makeAsyncIterator() -> EventSource.Events.Iterator {
            EventSource.Events.Iterator(box: IteratorBox(socket.isValid ? { EventSocketConnector.driver(for: socket, consumer: $0) } : nil))
        }
    }
}

/// How an ``EventSocket`` opens its connections.
struct EventSocketConnector: @unchecked Sendable {   // its configuration is only read
    typealias Driver = EventStreamDriver<SocketMessageDecoder>
    private let request: URLRequest
    private let configuration: EventSource.Configuration
    private let sessionConfiguration: URLSessionConfiguration

    /// A driver of a subscription whose connections this connector opens.
    static func driver(for socket: EventSocket, consumer: EventSourceConsumer) -> Driver {
        let connector = EventSocketConnector(request: socket.request, configuration: socket.configuration,
                                             sessionConfiguration: socket.session?.configuration ?? .default)
        let url = socket.request.url
        let lastEventID = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }?
            .queryItems?.last { $0.name == "lastEventId" }?.value ?? ""
        let make = { (topics: [String]) in
            Driver(name: "EventSocket", configuration: socket.configuration, consumer: consumer,
                   lastEventID: lastEventID, topics: topics, onConnectionEvent: socket.onConnectionEvent,
                   connect: { connector.connect(driver: $0, id: $1, lastEventID: $2, topics: $3) })
        }
        return socket.followed?.attach(make) ?? make([])
    }

    func connect(driver: Driver, id: UInt64, lastEventID: String, topics: [String]) {
        var request = self.request
        request.timeoutInterval = configuration.idleTimeout.seconds
        if !topics.isEmpty, let url = request.url {
            request.url = FeedCursor.url(url, adding: topics)
        }
        if !lastEventID.isEmpty, let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            var items = (components.queryItems ?? []).filter { $0.name != "lastEventId" }
            items.append(URLQueryItem(name: "lastEventId", value: lastEventID))
            components.queryItems = items
            request.url = components.url ?? url
        }
        #if canImport(Darwin)
        let useSession = true
        #else
        let useSession = request.url?.scheme?.lowercased() == "wss" && !PlainSocket.speaksTLS
        #endif
        if useSession && !configuration.tls.isDefault {
            // The session's TLS is not the options': fail rather than trust otherwise than asked.
            DispatchQueue.global().async { driver.ended(id: id, with: .failure(.tlsOptionsUnavailable)) }
        } else if useSession {
            SessionSocketConnection(id: id, driver: driver)
                .start(request: request, configuration: sessionConfiguration, maximumMessageSize: configuration.maximumEventSize)
        } else {
            #if !canImport(Darwin)
            let connection = WebSocketConnection(id: id, driver: driver, request: request,
                                                 maximumMessageSize: configuration.maximumEventSize,
                                                 idleTimeout: configuration.idleTimeout, tls: configuration.tls)
            if driver.attach(connection, id: id) { connection.start() }
            #endif
        }
    }
}

extension EventStreamDriver where Decoder == SocketMessageDecoder {
    /// Connection `id` was closed by its server with `code`: a normal close or the server going
    /// away reconnects; the server's error, restart, "try again later" and a bad gateway back off;
    /// any other code fails.
    func closed(id: UInt64, code: Int, reason: String) {
        switch code {
        case 1000, 1001, 1005, 1006:
            completed(id: id, error: nil)
        case 1011, 1012, 1013, 1014:
            ended(id: id, with: .retry(.closed(code: code, reason: reason), retryAfter: nil))
        default:
            ended(id: id, with: .failure(.closed(code: code, reason: reason)))
        }
    }
}

/// The topics an ``EventSocket`` of topics follows, shared by its copies: the list each new
/// subscription starts with, and the subscriptions that a change is told to.
final class EventSocketTopics: Sendable {
    private struct State {
        var topics: [String]
        var drivers: [WeakDriver] = []
    }

    private struct WeakDriver {
        weak var driver: EventSocketConnector.Driver?
    }

    private let state: Locked<State>

    init(_ topics: [String]) {
        state = Locked(State(topics: FeedCursor.list(topics)))
    }

    var topics: [String] { state.withLock { $0.topics } }

    /// A driver `make` makes with the topics followed now, told of every change from then on.
    func attach(_ make: ([String]) -> EventSocketConnector.Driver) -> EventSocketConnector.Driver {
        state.withLock { state in
            // Made under the lock (it calls nothing out): no change falls between its list and its joining.
            let driver = make(state.topics)
            state.drivers.removeAll { $0.driver == nil }
            state.drivers.append(WeakDriver(driver: driver))
            return driver
        }
    }

    func subscribe(_ topic: String, after: String?) {
        let drivers = state.withLock { state -> [EventSocketConnector.Driver] in
            if !state.topics.contains(topic) { state.topics.append(topic) }
            return state.drivers.compactMap(\.driver)   // each ignores a topic it follows already
        }
        for driver in drivers { driver.subscribe(topic, after: after) }
    }

    func unsubscribe(_ topic: String) {
        let drivers = state.withLock { state -> [EventSocketConnector.Driver] in
            state.topics.removeAll { $0 == topic }
            return state.drivers.compactMap(\.driver)   // each ignores a topic it does not follow
        }
        for driver in drivers { driver.unsubscribe(topic) }
    }
}
