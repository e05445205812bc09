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
/// none). Its control messages — `{"event":"dropped","dropped":n}`, `{"event":"reset","missed":n}`
/// and `{"event":"shutdown","reason":"…"}` — are the typed ``EventSource/Event/dropped(count:)``,
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
/// takes over. Nothing is dropped by the client.
///
/// **Where it runs.** On Apple's systems a connection is a `URLSessionWebSocketTask`. Elsewhere, a
/// `ws:` URL is read by the client's own WebSocket implementation on a POSIX socket (one thread
/// per connection); a `wss:` URL needs FoundationNetworking's `URLSessionWebSocketTask`, which
/// needs a libcurl built with WebSocket support — without one the publisher fails with
/// ``EventSourceError/webSocketUnavailable`` (read such a feed with ``EventSource`` instead, or
/// through a TLS-terminating proxy).
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
        self.request = request
        self.configuration = configuration
        self.session = session
        self.onConnectionEvent = onConnectionEvent
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
        return Driver(name: "EventSocket", configuration: socket.configuration, consumer: consumer,
                      lastEventID: lastEventID, onConnectionEvent: socket.onConnectionEvent, connect: { connector.connect(driver: $0, id: $1, lastEventID: $2) })
    }

    func connect(driver: Driver, id: UInt64, lastEventID: String) {
        var request = self.request
        request.timeoutInterval = configuration.idleTimeout.seconds
        if !lastEventID.isEmpty, let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            var items = (components.queryItems ?? []).filter { $0.name != "lastEventId" }
            items.append(URLQueryItem(name: "lastEventId", value: lastEventID))
            components.queryItems = items
            request.url = components.url ?? url
        }
        #if canImport(Darwin)
        let useSession = true
        #else
        let useSession = request.url?.scheme?.lowercased() == "wss"
        #endif
        if useSession {
            SessionSocketConnection(id: id, driver: driver)
                .start(request: request, configuration: sessionConfiguration, maximumMessageSize: configuration.maximumEventSize)
        } else {
            #if !canImport(Darwin)
            let connection = WebSocketConnection(id: id, driver: driver, request: request,
                                                 maximumMessageSize: configuration.maximumEventSize,
                                                 idleTimeout: configuration.idleTimeout)
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
