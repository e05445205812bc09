import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import Sluice
@_exported import SluiceFeed

/// An ``EventFeed`` served as Server-Sent Events: one `text/event-stream` response per request,
/// each a client of the feed with its own demand, buffer and ``SlowClientPolicy``.
///
/// ```swift
/// let feed = EventFeed(prices.map { ServerSentEvent(data: $0.json, event: "price") })
/// let events = ServerSentEvents(feed: feed, options: .init(heartbeat: .seconds(15)))
/// router.get("prices") { request, _ in events.response(to: request) }
/// ```
///
/// The stream: `retry:` first; then each event as `id:` (its ``EventID``, `<epoch>-<position>`),
/// `event:` if named,
/// `data:` lines; `: heartbeat` comments while nothing else was written for a
/// ``Options/heartbeat`` interval; `event: dropped` (data `{"dropped":n}`) where this client lost
/// events by its policy; `event: reset` (data `{"missed":n}`, or `{"missed":null}` when unknown)
/// first when the client resumed from an id older than the feed's replay window, meaning "refetch
/// your state"; `event: shutdown` (data: the reason) last when the feed or the server shuts down.
///
/// - **Resume**: a request's `Last-Event-ID` header, or else its `lastEventId` query parameter,
///   is the id the client has seen last (``EventFeed/client(from:policy:)``); one that is not an
///   id of this feed's epoch gets `event: reset` first. A feed over a log reads what the client
///   missed from the log when its memory does not reach back so far.
/// - **Demand**: a client has at most ``Options/window`` events requested from its feed
///   subscription; it requests more only when its write of the previous ones to the connection
///   has completed — Hummingbird's writer waits while the channel is not writable — so a slow
///   socket leaves events in that client's buffer, where its policy applies.
/// - **Ends**: the peer closing its side (the request's inbound stream ends) stops the stream at
///   once; so does ``SlowClientPolicy/disconnect(buffer:)``, without waiting for the stalled
///   socket. On the server's graceful shutdown (swift-service-lifecycle, through the task that
///   serves the connection) or ``EventFeed/finish(reason:)``, the stream writes what is buffered,
///   `event: shutdown`, and ends; a client that does not read it within ``Options/shutdownGrace``
///   is disconnected, so shutdown never hangs.
/// - The request's body must not have been read or replaced before ``response(to:)`` (the stream
///   watches it to see the peer close).
public struct ServerSentEvents<Output: Sendable>: Sendable {
    /// How each stream behaves.
    public struct Options: Sendable {
        /// The reconnection delay the `retry:` line asks browsers to use (3 s); `nil`: no `retry:`.
        public var retry: Duration?
        /// How long a stream may stay silent before a `: heartbeat` comment is written (15 s, to
        /// keep proxies from timing the connection out); `nil`: no heartbeats.
        public var heartbeat: Duration?
        /// The policy for this endpoint's slow clients; `nil`: the feed's.
        public var policy: SlowClientPolicy?
        /// How long a stream may take to write its last events after shutdown began (5 s).
        public var shutdownGrace: Duration
        /// How many events a client has requested at most while its writes are in flight (16):
        /// they are written together, as one write.
        public var window: Int
        /// Where the heartbeat and shutdown timers run.
        public var eventLoopGroup: any EventLoopGroup

        /// Options for a stream.
        public init(retry: Duration? = .seconds(3), heartbeat: Duration? = .seconds(15), policy: SlowClientPolicy? = nil,
                    shutdownGrace: Duration = .seconds(5), window: Int = 16,
                    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
            precondition(window > 0, "window must be positive")
            self.retry = retry
            self.heartbeat = heartbeat
            self.policy = policy
            self.shutdownGrace = shutdownGrace
            self.window = window
            self.eventLoopGroup = eventLoopGroup
        }
    }

    /// The feed served.
    public let feed: EventFeed<Output>
    /// How each stream behaves.
    public let options: Options
    private let encode: @Sendable (Output) -> ServerSentEvent

    /// Serves `feed`, whose events are ready-encoded: encoded once for all clients.
    public init(feed: EventFeed<ServerSentEvent>, options: Options = Options()) where Output == ServerSentEvent {
        self.init(feed: feed, options: options) { $0 }
    }

    /// Serves `feed`, encoding each event with `encode` for each client (map to
    /// ``ServerSentEvent`` before the feed instead, to encode once).
    public init(feed: EventFeed<Output>, options: Options = Options(), encode: @escaping @Sendable (Output) -> ServerSentEvent) {
        self.feed = feed
        self.options = options
        self.encode = encode
    }

    /// Where a request resumes: after its `Last-Event-ID` header's id, else its `lastEventId` query
    /// parameter's; ``ResumePoint/live`` when it has neither, ``ResumePoint/unreadable(_:)`` when
    /// the one it has is not an ``EventID``.
    public static func resumePoint(of request: Request) -> ResumePoint {
        if let header = request.headers[HTTPField.Name("Last-Event-ID")!] {
            return ResumePoint(lastEventID: header)
        }
        return ResumePoint(lastEventID: request.uri.queryParameters["lastEventId"].map(String.init))
    }

    /// A `text/event-stream` response that streams the feed to this request's client, from after
    /// its last event id. The client joins the feed when the response body begins to be written.
    /// With `filter`, the client gets only the events it accepts (what it may see): the others
    /// are skipped for it — they still count against its window — and it resumes past them.
    public func response(to request: Request, filter: (@Sendable (Output) -> Bool)? = nil) -> Response {
        let start = Self.resumePoint(of: request)
        let stream = self
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: ResponseBody { writer in
                try await stream.serve(request: request, from: start, filter: filter, writer: writer)
            })
    }

    private func serve(request: Request, from start: ResumePoint, filter: (@Sendable (Output) -> Bool)?,
                       writer: any ResponseBodyWriter) async throws {
        let outlet = ClientOutlet(
            window: options.window, heartbeat: options.heartbeat.map(TimeAmount.init),
            shutdownGrace: TimeAmount(options.shutdownGrace), eventLoop: options.eventLoopGroup.any())
        defer { outlet.end() }
        feed.join(outlet, from: start, policy: options.policy)
        let box = WriterBox(writer)
        let stream = self
        try await request.body.consumeWithInboundCloseHandler { _ in
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await stream.pump(outlet, box, filter) }
                    group.addTask { try await outlet.waitForStop() }
                    try await group.next()
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                outlet.shutDown()
            }
        } onInboundClosed: {
            outlet.stop(.peerClosed)
        }
    }

    /// Writes what the outlet hands over until the stream ends; requests more after each write.
    private func pump(_ outlet: ClientOutlet, _ box: WriterBox, _ filter: (@Sendable (Output) -> Bool)?) async throws {
        if let retry = options.retry {
            try await box.writer.write(ByteBuffer(string: "retry: \(retry.milliseconds)\n\n"))
        }
        var buffer = ByteBuffer()
        while true {
            switch await outlet.next() {
            case .write(let messages):
                buffer.clear()
                for message in messages { append(message, to: &buffer, filter) }
                if buffer.readableBytes > 0 { try await box.writer.write(buffer) }
                outlet.wrote(messages)
            case .heartbeat:
                try await box.writer.write(ByteBuffer(staticString: ": heartbeat\n\n"))
            case .finish:
                try await box.writer.finish(nil)
                return
            case .stop(let reason):
                throw reason
            }
        }
    }

    private func append(_ message: ClientMessage, to buffer: inout ByteBuffer, _ filter: (@Sendable (Output) -> Bool)?) {
        switch message {
        case .event(let event):
            if let filter, !filter(event.value(as: Output.self)) { return }
            buffer.writeStaticString("id: ")
            buffer.writeString(event.epoch)
            buffer.writeStaticString("-")
            buffer.writeString(String(event.id))
            buffer.writeStaticString("\n")
            var encoded = encode(event.value(as: Output.self)).encoded
            buffer.writeBuffer(&encoded)
        case .dropped(let count):
            buffer.writeString("event: dropped\ndata: {\"dropped\":\(count)}\n\n")
        case .reset(let missed):
            buffer.writeString("event: reset\ndata: {\"missed\":\(missed.map(String.init) ?? "null")}\n\n")
        case .shutdown(let reason):
            var encoded = ServerSentEvent(data: reason, event: "shutdown").encoded
            buffer.writeBuffer(&encoded)
        }
    }
}

/// The response body writer, carried to the task that writes (only that task uses it).
final class WriterBox: @unchecked Sendable {
    var writer: any ResponseBodyWriter
    init(_ writer: any ResponseBodyWriter) { self.writer = writer }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
