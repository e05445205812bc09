#if Vapor
import NIOCore
import Sluice
import SluiceFeed
import Vapor

/// An ``/SluiceFeed/EventFeed`` served over a Vapor WebSocket: each connection a client of the feed with its
/// own demand, buffer and ``/SluiceFeed/SlowClientPolicy``, its events out as text or binary messages; the
/// client's own messages in as a publisher.
///
/// ```swift
/// let chat = WebSocketFeed(feed: feed)                        // EventFeed<String>: text messages
/// app.webSocket("chat", shouldUpgrade: chat.shouldUpgrade) { request, socket in
///     chat.serve(socket, for: request) { incoming in
///         incoming.sink { message in post(message) }
///     }
/// }
/// ```
///
/// The socket is served once its upgrade has been answered: ``shouldUpgrade(_:)`` fixes the
/// client's start before that, so that a client that sends or causes an event as soon as its socket
/// opens gets it. Served from an explicit start instead, a new client joins when `serve` runs.
///
/// The messages are ``/SluiceFeed/FeedSocketStream``'s (the same as SluiceHummingbird's `WebSocketFeed`).
/// A client has at most ``/SluiceFeed/FeedStreamOptions/window`` events requested; more once
/// the sends of the previous ones have been written to the socket. A feed that serves as many
/// clients as it may (``/SluiceFeed/EventFeed/Options/maximumClients``) closes a new connection at
/// once with code 1013 (try again later). The connection ends when the
/// client closes it, when it falls behind under a disconnecting policy, or after the shutdown
/// message once the feed finished (a close frame, `going away`).
public struct WebSocketFeed<Output: Sendable>: Sendable {
    /// How each connection behaves.
    public typealias Options = FeedStreamOptions

    /// The transport-neutral stream each connection sends.
    public let stream: FeedSocketStream<Output>
    /// How often each socket served is pinged (30 s, as Hummingbird's WebSocket server does): a
    /// client that has not answered one ping by the next is closed (code 1006), and the pings keep
    /// a quiet socket within the server's `idleTimeout`. `nil`: no pings. A socket whose
    /// `pingInterval` is already set keeps its own.
    public var pingInterval: TimeAmount? = .seconds(30)

    /// Serves `stream` (shared with other endpoints, or other frameworks).
    public init(stream: FeedSocketStream<Output>) {
        self.stream = stream
    }

    /// Serves `feed`, each event as the message `encode` makes of it (its id, to let clients
    /// resume with `lastEventId`, and its value).
    public init(feed: EventFeed<Output>, options: Options = Options(),
                encode: @escaping @Sendable (_ id: EventID, _ value: Output) -> FeedSocketMessage) {
        stream = FeedSocketStream(feed: feed, options: options, encode: encode)
    }

    /// Streams the feed to `socket`'s client from `start` until the feed finishes, the client
    /// leaves or falls behind under a disconnecting policy; then closes the socket. Call it from
    /// Vapor's synchronous `webSocket` handler (`{ request, socket in … }`), which runs on the
    /// socket's event loop before any message is read: the client's first messages then reach
    /// `incoming` too. The stream runs in a task of its own; this returns at once.
    ///
    /// `incoming`, if given, gets the client's messages as a publisher (Vapor hands them over as
    /// they arrive: a message that finds no demand is dropped — put a `buffer` in front to keep
    /// them); what it returns is kept until the connection ends, then cancelled. With `filter`,
    /// the client gets only the events it accepts.
    public func serve(_ socket: WebSocket, from start: ResumePoint = .live,
                      incoming: ((AnyPublisher<FeedSocketMessage, Never>) -> (any Cancellable)?)? = nil,
                      filter: (@Sendable (Output) -> Bool)? = nil) {
        let client = stream.client(from: start, filter: filter)
        socket.ping(every: pingInterval)
        let messages = PassthroughSubject<FeedSocketMessage, Never>()
        let kept = incoming?(messages.eraseToAnyPublisher()).map(KeptCancellable.init)
        let listen: @Sendable () -> Void = {
            socket.onText { _, text in messages.send(.text(text)) }
            socket.onBinary { _, bytes in messages.send(.binary(bytes)) }
        }
        // Called elsewhere than on the socket's event loop (an `async` upgrade handler), the
        // callbacks are set there a moment later: a message arriving meanwhile is not seen.
        if socket.eventLoop.inEventLoop { listen() } else { socket.eventLoop.execute(listen) }
        socket.onClose.whenComplete { _ in
            messages.send(completion: .finished)
            client.peerClosed()
        }
        Task {
            do {
                try await client.run(send: socket.send(feedMessage:))
            } catch FeedStreamStop.tooManyClients {
                try? await socket.close(code: .unknown(FeedSocketStream<Output>.tryAgainLater))
            } catch {}
            try? await socket.close(code: .goingAway)
            kept?.cancellable.cancel()
        }
    }
}

extension WebSocketFeed {
    /// A `webSocket` route's `shouldUpgrade` that fixes where the connection's client starts (its
    /// `lastEventId` query parameter; for a new client the feed's latest event), so that a new
    /// client gets every event from the moment its upgrade is answered: then serve it with
    /// ``serve(_:for:incoming:filter:)``.
    @Sendable public func shouldUpgrade(_ request: Request) -> EventLoopFuture<HTTPHeaders?> {
        fixStart(of: request)
        return request.eventLoop.makeSucceededFuture([:])
    }

    /// Fixes now where the client of `request`'s connection starts (as ``shouldUpgrade(_:)`` does,
    /// for a `shouldUpgrade` of your own).
    public func fixStart(of request: Request) {
        request.storage[FixedStart.self] = stream.feed.fixing(ResumePoint(lastEventID: request.query[String.self, at: "lastEventId"]))
    }

    /// Serves `socket` as ``serve(_:from:incoming:filter:)`` does, from the start
    /// ``shouldUpgrade(_:)`` (or ``fixStart(of:)``) fixed for `request`; without one, from its
    /// `lastEventId` query parameter.
    public func serve(_ socket: WebSocket, for request: Request,
                      incoming: ((AnyPublisher<FeedSocketMessage, Never>) -> (any Cancellable)?)? = nil,
                      filter: (@Sendable (Output) -> Bool)? = nil) {
        let start = request.storage[FixedStart.self] ?? ResumePoint(lastEventID: request.query[String.self, at: "lastEventId"])
        serve(socket, from: start, incoming: incoming, filter: filter)
    }
}

extension WebSocket {
    /// Pings the client every `interval` from one interval on (`nil`: never), unless the socket
    /// pings already. (WebSocketKit pings as soon as its `pingInterval` is set: a socket closed at
    /// once, a full feed's say, is sent no ping.)
    func ping(every interval: TimeAmount?) {
        guard let interval, pingInterval == nil else { return }
        let first = eventLoop.scheduleTask(in: interval) { [weak self] in
            if let self, pingInterval == nil { pingInterval = interval }
        }
        onClose.whenComplete { _ in first.cancel() }
    }

    /// Sends a feed's message: text as a text frame, bytes as a binary one.
    @Sendable func send(feedMessage message: FeedSocketMessage) async throws {
        switch message {
        case .text(let text): try await send(text)
        case .binary(let bytes): try await send(raw: bytes.readableBytesView, opcode: .binary)
        }
    }
}

/// Where a WebSocket connection's client starts, kept in its request from the upgrade.
private struct FixedStart: StorageKey {
    typealias Value = ResumePoint
}

/// What `incoming` returned, carried into the task that cancels it when the connection ends
/// (only that task touches it afterwards).
private struct KeptCancellable: @unchecked Sendable {
    let cancellable: any Cancellable
}

extension WebSocketFeed where Output == String {
    /// Serves a feed of text, each event as a text message of its value.
    public init(feed: EventFeed<String>, options: Options = Options()) {
        self.init(feed: feed, options: options) { _, text in .text(text) }
    }
}

extension WebSocketFeed where Output == ByteBuffer {
    /// Serves a feed of bytes, each event as a binary message of its value.
    public init(feed: EventFeed<ByteBuffer>, options: Options = Options()) {
        self.init(feed: feed, options: options) { _, bytes in .binary(bytes) }
    }
}
extension WebSocketFeed where Output == ServerSentEvent {
    /// Serves a feed of ready-encoded events, each as the text message every Sluice socket sends:
    /// `{"id":"<epoch>-<position>","data":"…"}` (SluiceFeed's `FeedSocketMessage.event(id:data:topic:)`).
    public init(feed: EventFeed<ServerSentEvent>, options: Options = Options()) {
        self.init(stream: FeedSocketStream(feed: feed, options: options))
    }
}
#endif
