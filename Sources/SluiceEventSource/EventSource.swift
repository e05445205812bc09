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

/// A client of a Server-Sent Events stream (`text/event-stream`): a Combine publisher of its
/// events, and through ``events`` an `AsyncSequence` of them, that reconnects and resumes.
///
/// A whole program (a `main.swift`, Swift 6):
///
/// ```swift
/// import Foundation
/// import SluiceEventSource
/// #if canImport(Combine)
/// import Combine   // Apple's systems: AnyCancellable, receive(on:), sink
/// #else
/// import Sluice    // Linux and other systems: the same API
/// #endif
///
/// let feed = EventSource(url: URL(string: "http://localhost:8080/events/prices")!)
///
/// // As a publisher. Events arrive on the connection's thread; top-level code, like UI code,
/// // is isolated to the main actor, so its closures take them on the main queue.
/// let cancellable = feed
///     .receive(on: DispatchQueue.main)
///     .sink(receiveCompletion: { print("publisher:", $0) }, receiveValue: { print("publisher:", $0) })
///
/// // As an AsyncSequence: the loop's body runs where the loop does.
/// for try await event in feed.events {
///     print("sequence:", event)
/// }
/// ```
///
/// **Where events arrive.** A subscriber is called on the connection's thread (off Apple's
/// systems, for `http:`), the connection's delegate queue (a data task's), or the thread that
/// requested: one at a time, never on two threads at once, and in general not on the main
/// thread. Closures that belong to the main actor — those of top-level code in `main.swift` and
/// of UI code — must receive on the main queue: put `.receive(on: DispatchQueue.main)` (or
/// `RunLoop.main`) before `sink`. Without it such a closure runs off the main thread — a data
/// race — and where Swift 6's runtime checks of actor isolation are on, the program stops at the
/// first event. The `AsyncSequence` needs nothing: `for try await` resumes in its own task's
/// isolation.
///
/// Each subscription (each iterator of ``events``) makes its own connection, at the subscriber's
/// first demand, and publishes ``Event`` values: the stream's events, parsed exactly as the HTML
/// standard says (``EventStreamParser``), and a Sluice feed's `reset`, `dropped` and `shutdown`
/// as typed values.
///
/// **Reconnecting.** When an open stream ends — the server closed it, or the network failed —
/// the client waits the reconnection time (the last `retry:` the server sent, or
/// ``Configuration/reconnectionTime``) and reconnects, sending the last event ID as
/// `Last-Event-ID` (the last event ID survives any number of reconnections). An event cut off by
/// the end of a connection is never published: the server sends it again after that ID. An
/// attempt that fails — no response, or status 408, 429 or 5xx — is retried after a wait that
/// doubles with each consecutive failure, up to ``Configuration/maximumBackoff``, with jitter (and
/// is never shorter than a `Retry-After` of seconds asks).
/// Status 204 finishes the publisher; a 200 that is not `text/event-stream`, and any other status
/// (401, 403, 404...), fail it with ``EventSourceError``; so do
/// ``Configuration/maximumAttempts`` consecutive failed attempts, if set, and an event larger than
/// ``Configuration/maximumEventSize``. A completion reaches the subscriber after the events
/// received before it.
///
/// **Demand.** Events are delivered only as the subscriber requests them. Up to
/// ``Configuration/bufferSize`` more are held; when that buffer is full the client stops reading
/// the stream, so the server's own flow control (and a Sluice feed's slow-client policy, which says
/// what it dropped with `dropped`) takes over. Nothing is dropped by the client. On Apple's systems
/// the data task is suspended, and off them an `http:` URL (and an `https:` one, with the package
/// trait `TLS`) is read by the module's own HTTP/1.1 client, whose thread stops reading; either is
/// resumed once the subscriber has taken half the buffer, and the connection stays open. Elsewhere
/// off Apple's systems (`https:` without the trait, or a session of the caller's) the data task is FoundationNetworking's, which cannot suspend a transfer: the
/// client reads on, holding what arrives unparsed, until ``Configuration/readAhead`` bytes
/// (256 KiB) wait behind the full buffer; then it closes the connection and, once the subscriber
/// has taken what was held, reopens it with `Last-Event-ID`: a server that resumes by event ID (as
/// a Sluice feed does) then sends exactly what followed; from a server that does not, the events
/// sent in between are lost. Such a stream, coming faster than its subscriber takes it, resumes
/// once per read-ahead. One that has sent no event ID cannot be resumed (a new request would start
/// it over), so there the client reads on and holds the bytes unparsed — up to
/// ``Configuration/maximumEventSize``, past which it fails with
/// ``EventSourceError/subscriberTooSlow(limit:)``.
///
/// **Off Apple's systems, `http:`.** The module's own client sends the request's headers and the
/// cookies `HTTPCookieStorage.shared` holds for the URL, stores the cookies the server sets,
/// follows up to 20 redirects (dropping `Authorization` and `Cookie` for another origin; one to
/// `https:` goes on as a data task, or in the same client with the trait `TLS`), and reads
/// chunked, sized and close-delimited bodies. A data task reads the URL instead when the caller
/// passes a session, when the request is not a `GET` without a body, or when `http_proxy` or
/// `all_proxy` is set (libcurl's proxy).
///
/// **Off Apple's systems, `https:`, with the package trait `TLS`.** The same client, over a TLS
/// connection of SwiftNIO SSL: the same demand, backpressure, resume and failures as `http:`.
/// ``Configuration/tls`` sets its trust roots, whether the system's count too, a client
/// certificate (mutual TLS), and its proxy: a `CONNECT` tunnel through `https_proxy` (or
/// `all_proxy`) unless `no_proxy` lists the host, or through a proxy given there. A failed
/// handshake is a failed attempt with ``EventSourceError/tlsFailed(_:)``, which says why (a
/// certificate not trusted, a port that does not speak TLS, a client certificate required).
///
/// **Many topics.** ``init(url:topics:configuration:session:onConnectionEvent:)`` follows several
/// topics of a Sluice feed on one connection (`?topic=a&topic=b`): each event names its topic and
/// carries its id in it, the cursor that is the stream's last event ID resumes every topic on
/// reconnection, and a reset or a drop of one topic names it (``Event``).
///
/// **Failures it tells.** Each attempt, each failed attempt (with the ``EventSourceError`` that
/// says why: a refusal, a name not found, TLS, a timeout, a status, a protocol error) and the
/// wait before the next, and each resume are reported as ``ConnectionEvent`` values to the
/// `onConnectionEvent` handler, as they happen. ``Configuration/maximumAttempts`` and
/// ``Configuration/maximumRetryTime`` bound the retries: past them the stream fails with
/// ``EventSourceError/gaveUp(attempts:lastFailure:)``.
///
/// **Cancelling** closes the connection at once and drops what is buffered.
public struct EventSource: Publisher, Sendable {
    /// The values published: events and Sluice's control events.
    public typealias Output = Event
    /// Why the publisher fails.
    public typealias Failure = EventSourceError

    /// The request made on each connection (the client adds `Accept`, `Cache-Control` and, when
    /// it resumes, `Last-Event-ID`; it sets the timeout to ``Configuration/idleTimeout``).
    public let request: URLRequest
    /// How the client reconnects and buffers.
    public let configuration: Configuration
    /// The session whose configuration the connections use (`nil`: the default configuration).
    public let session: URLSession?
    /// What is told of each subscription's connections — every attempt, failure and resume — as
    /// it happens (`nil`: nothing). See ``ConnectionEvent``.
    public let onConnectionEvent: (@Sendable (ConnectionEvent) -> Void)?

    /// A client of the stream at `url`.
    ///
    /// - Parameters:
    ///   - url: The stream's URL (HTTP or HTTPS).
    ///   - configuration: How to reconnect and buffer.
    ///   - session: A session whose configuration (headers, timeouts, proxy, cookies, TLS) the
    ///     connections use. On Apple's systems the tasks are made in it, with a delegate of their
    ///     own; with FoundationNetworking, in a session of the same configuration (its delegate
    ///     is not called).
    ///   - onConnectionEvent: Told what each subscription's connections do: each attempt, each
    ///     failed attempt with the wait before the next, each resume (``ConnectionEvent``). It is
    ///     called on the connection's thread or a timer's, one event at a time, and must not block.
    public init(url: URL, configuration: Configuration = Configuration(), session: URLSession? = nil,
                onConnectionEvent: (@Sendable (ConnectionEvent) -> Void)? = nil) {
        self.init(request: URLRequest(url: url), configuration: configuration, session: session,
                  onConnectionEvent: onConnectionEvent)
    }

    /// A client of one stream of several topics: `url` (a Sluice feed's `/events`) with a
    /// `topic` query parameter for each of `topics`, in their order.
    ///
    /// Each event of the stream names its topic (``Message/topic``, also its type: a Sluice feed
    /// sends `event: <topic>`) and carries the topic's own id (``Message/topicEventID``); its
    /// ``Message/id`` is the connection's cursor, which holds every topic's position, so a
    /// reconnection — to any instance of the feed — resumes each topic exactly after its last
    /// event. A reset or a drop of one topic is ``Event/topicReset(topic:missed:)`` or
    /// ``Event/topicDropped(topic:count:)``.
    ///
    /// A whole program (a `main.swift`):
    ///
    /// ```swift
    /// import Foundation
    /// import SluiceEventSource
    ///
    /// // One connection, three topics: each event names its topic, and a reconnection resumes every
    /// // topic after its own last event, on any instance of the feed.
    /// let feed = EventSource(url: URL(string: "http://localhost:8080/events")!, topics: ["orders", "chat", "prices"])
    /// for try await event in feed.events {
    ///     switch event {
    ///     case .event(let message):
    ///         print(message.topic ?? "-", message.topicEventID ?? "-", message.data)
    ///     case .topicReset(let topic, _), .topicDropped(let topic, _):
    ///         print(topic, "lost events: fetch its state again")
    ///     default:
    ///         break
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - url: The feed's URL, without the topics (its other query parameters are kept).
    ///   - topics: The topics to follow (repeats are followed once), at least one.
    ///   - configuration: How to reconnect and buffer.
    ///   - session: A session whose configuration the connections use (see
    ///     ``init(url:configuration:session:onConnectionEvent:)``).
    ///   - onConnectionEvent: Told what each subscription's connections do (``ConnectionEvent``).
    public init(url: URL, topics: [String], configuration: Configuration = Configuration(), session: URLSession? = nil,
                onConnectionEvent: (@Sendable (ConnectionEvent) -> Void)? = nil) {
        self.init(url: FeedCursor.url(url, adding: FeedCursor.list(topics)), configuration: configuration, session: session,
                  onConnectionEvent: onConnectionEvent)
    }

    /// A client of the stream that `request` asks for: its headers (`Authorization`, …) are sent
    /// on every connection.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - configuration: How to reconnect and buffer.
    ///   - session: A session whose configuration the connections use (see
    ///     ``init(url:configuration:session:onConnectionEvent:)``).
    ///   - onConnectionEvent: Told what each subscription's connections do (``ConnectionEvent``).
    public init(request: URLRequest, configuration: Configuration = Configuration(), session: URLSession? = nil,
                onConnectionEvent: (@Sendable (ConnectionEvent) -> Void)? = nil) {
        self.request = request
        self.configuration = configuration
        self.session = session
        self.onConnectionEvent = onConnectionEvent
    }

    /// Attaches `subscriber`: a new connection, opened at its first demand.
    ///
    /// - Parameter subscriber: The subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Event, S.Failure == EventSourceError {
        guard isValid else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: .failure(.invalidRequest))
            return
        }
        let consumer = EventSourceConsumer(receive: { subscriber.receive($0) }, complete: { subscriber.receive(completion: $0) })
        subscriber.receive(subscription: EventSourceConnector.driver(for: self, consumer: consumer))
    }

    /// The events as an `AsyncSequence`: each iterator is a connection of its own, which asks for
    /// one event per call of `next()` and buffers up to ``Configuration/bufferSize``. The sequence
    /// ends when the publisher would finish, throws an ``EventSourceError`` when it would fail, and
    /// ends (closing the connection) when the iterating task is cancelled.
    public var events: Events { Events(source: self) }

    /// The topics the stream follows: the `topic` query parameters of the request's URL, in their
    /// order, without repeats (empty for a stream of one topic). An event of one of them gets its
    /// ``Message/topic`` and ``Message/topicEventID``.
    public var topics: [String] {
        guard let url = request.url, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems else { return [] }
        return FeedCursor.list(items.filter { $0.name == "topic" }.compactMap(\.value))
    }

    /// Whether the request can be made: an HTTP or HTTPS URL.
    var isValid: Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }
}

