#if Server
import NIOCore
import NIOPosix
import Sluice

/// An ``EventFeed`` as Server-Sent Events for any HTTP server: the bytes of each client's
/// `text/event-stream` body, written through a closure the transport gives. SluiceHummingbird's
/// `ServerSentEvents` and SluiceVapor's are this with their framework's request and response.
///
/// ```swift
/// let stream = ServerSentEventStream(feed: feed)
/// // in a handler, for one client:
/// let client = stream.client(from: ResumePoint(lastEventID: lastEventIDHeader))
/// try await client.run { bytes in try await body.write(bytes) }   // returns once the feed finished
/// ```
///
/// The stream: `retry:` first; then each event as `id:` (its ``EventID``, `<epoch>-<position>`),
/// `event:` if named, `data:` lines; `: heartbeat` comments while nothing else was written for a
/// ``Options/heartbeat`` interval; `event: dropped` (data `{"dropped":n}`) where the client lost
/// events by its policy; `event: reset` (data `{"missed":n}`, or `{"missed":null}` when unknown)
/// where what it asked for is gone ("refetch your state"); `event: shutdown` (data: the reason)
/// last when the feed or the server shuts down.
public struct ServerSentEventStream<Output: Sendable>: Sendable {
    /// How each client's stream behaves.
    public struct Options: Sendable {
        /// The reconnection delay the `retry:` line asks browsers to use (3 s); `nil`: no `retry:`.
        public var retry: Duration?
        /// How far each client's `retry:` is spread above ``retry``, as a fraction of it (0.5: from
        /// 3 s to 4.5 s): one value for each client, drawn when it connects, so that the clients of
        /// an instance that stops come back to the others over a stretch of time rather than all
        /// at once. 0: every client gets ``retry``.
        public var retryJitter: Double
        /// How long a stream may stay silent before a `: heartbeat` comment is written (15 s, to
        /// keep proxies from timing the connection out); `nil`: no heartbeats. The streams of an
        /// event loop share one timer that ticks at this interval, and a stream writes a heartbeat
        /// at a tick when it wrote nothing since the previous one: after one to two intervals of
        /// silence.
        public var heartbeat: Duration?
        /// The reconnection delay a stream's last message, `event: shutdown`, asks for (1 s,
        /// spread above by ``retryJitter`` as ``retry`` is), so that the clients of an instance
        /// that is stopped — drained, in a rolling restart — come back to the others sooner than
        /// ``retry`` would have them; `nil`: the stream's `retry:` stands.
        public var shutdownRetry: Duration?
        /// What applies to any transport: the policy, the shutdown grace, the window, the event
        /// loops (the properties below are its own).
        public var stream: FeedStreamOptions

        /// The policy for this endpoint's slow clients; `nil`: the feed's.
        public var policy: SlowClientPolicy? {
            get { stream.policy }
            set { stream.policy = newValue }
        }
        /// How long a stream may take to write its last events after shutdown began (5 s).
        public var shutdownGrace: Duration {
            get { stream.shutdownGrace }
            set { stream.shutdownGrace = newValue }
        }
        /// How many events a client has requested at most while its writes are in flight (16):
        /// they are written together, as one write.
        public var window: Int {
            get { stream.window }
            set { stream.window = newValue }
        }
        /// Where the heartbeat and shutdown timers run.
        public var eventLoopGroup: any EventLoopGroup {
            get { stream.eventLoopGroup }
            set { stream.eventLoopGroup = newValue }
        }

        /// Options for a stream.
        public init(retry: Duration? = .seconds(3), retryJitter: Double = 0.5, heartbeat: Duration? = .seconds(15),
                    policy: SlowClientPolicy? = nil, shutdownGrace: Duration = .seconds(5), window: Int = 16,
                    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                    shutdownRetry: Duration? = .seconds(1)) {
            precondition(retryJitter >= 0, "retryJitter must not be negative")
            self.retry = retry
            self.retryJitter = retryJitter
            self.heartbeat = heartbeat
            self.shutdownRetry = shutdownRetry
            stream = FeedStreamOptions(policy: policy, shutdownGrace: shutdownGrace, window: window, eventLoopGroup: eventLoopGroup)
        }
    }

    /// The feed served.
    public let feed: EventFeed<Output>
    /// How each client's stream behaves.
    public let options: Options
    let encode: @Sendable (Output) -> ServerSentEvent
    /// The `retry:` lines its clients are given, first and before their `shutdown`.
    let retryLines: RetryLines
    let shutdownRetryLines: RetryLines
    /// Whether each event is written as the frame the feed made of it (a feed of
    /// ``ServerSentEvent``s, written as they are).
    package let writesFrames: Bool

    /// Serves `feed`, whose events are ready-encoded: each event's frame, `id:` line included, is
    /// made once, by the feed, for every client.
    public init(feed: EventFeed<ServerSentEvent>, options: Options = Options()) where Output == ServerSentEvent {
        self.feed = feed
        self.options = options
        self.encode = { $0 }
        writesFrames = true
        retryLines = RetryLines(retry: options.retry, jitter: options.retryJitter)
        shutdownRetryLines = RetryLines(retry: options.shutdownRetry, jitter: options.retryJitter)
    }

    /// Serves `feed`, encoding each event with `encode` for each client (map to
    /// ``ServerSentEvent`` before the feed instead, to encode once).
    public init(feed: EventFeed<Output>, options: Options = Options(), encode: @escaping @Sendable (Output) -> ServerSentEvent) {
        self.feed = feed
        self.options = options
        self.encode = encode
        writesFrames = false
        retryLines = RetryLines(retry: options.retry, jitter: options.retryJitter)
        shutdownRetryLines = RetryLines(retry: options.shutdownRetry, jitter: options.retryJitter)
    }

    /// A new client of the feed from `start` (its `Last-Event-ID`: `ResumePoint(lastEventID:)`);
    /// with `filter`, it gets only the events it accepts (the others are skipped for it — they
    /// still count against its window — and it resumes past them). The client joins the feed
    /// at once: ``ServerSentEventClient/run(write:)`` must follow (or
    /// ``ServerSentEventClient/end()``).
    public func client(from start: ResumePoint = .live, filter: (@Sendable (Output) -> Bool)? = nil) -> ServerSentEventClient<Output> {
        ServerSentEventClient(outlet: feed.connect(from: start, options: options.stream, heartbeat: options.heartbeat),
                              writer: writer(filter: filter), preamble: preamble)
    }

    /// The writer of one client's body, with `filter`.
    package func writer(filter: (@Sendable (Output) -> Bool)?) -> ServerSentEventWriter<Output> {
        ServerSentEventWriter(encode: encode, writesFrames: writesFrames, filter: filter, shutdownRetry: shutdownRetryLines)
    }
}

/// One client of a ``ServerSentEventStream``: its body's bytes, written by ``run(write:)``.
///
/// - **Demand**: the client has at most ``ServerSentEventStream/Options/window`` events requested
///   from its feed subscription; it requests more only when `write` of the previous ones has
///   returned — so a transport whose write waits while the socket is not writable leaves events
///   in the client's buffer, where its ``SlowClientPolicy`` applies.
/// - **Ends**: ``run(write:)`` returns after `event: shutdown` once the feed finished (the
///   transport then ends the body), and throws a ``FeedStreamStop`` when the connection is to be
///   dropped at once: ``peerClosed()`` (the transport saw the peer close), a disconnecting
///   policy, or a shutdown that the client did not follow within the grace period. Run inside a
///   swift-service-lifecycle `ServiceGroup`, a graceful shutdown begins the client's shutdown.
public final class ServerSentEventClient<Output: Sendable>: Sendable {
    private let outlet: ClientOutlet
    private let writer: ServerSentEventWriter<Output>
    private let preamble: ByteBuffer?

    init(outlet: ClientOutlet, writer: ServerSentEventWriter<Output>, preamble: ByteBuffer?) {
        self.outlet = outlet
        self.writer = writer
        self.preamble = preamble
    }

    /// Writes the stream through `write` until it ends (see the type's description), then ends
    /// the client. `write` is called from one task at a time, each call after the previous one
    /// returned; an error it throws ends the stream with that error.
    public func run(write: @escaping @Sendable (ByteBuffer) async throws -> Void) async throws {
        try await outlet.serve { [self] outlet in try await pump(outlet, write) }
    }

    /// The peer closed its side: ``run(write:)`` throws ``FeedStreamStop/peerClosed`` at once.
    public func peerClosed() {
        outlet.stop(.peerClosed)
    }

    /// This client alone shuts down: what is buffered, then `event: shutdown`, then
    /// ``run(write:)`` returns (or throws ``FeedStreamStop/shutdownTimedOut`` after the grace
    /// period if the client does not take it).
    public func shutDown() {
        outlet.shutDown()
    }

    /// Leaves the feed without running (``run(write:)`` does it itself when it returns).
    public func end() {
        outlet.end()
    }

    private func pump(_ outlet: ClientOutlet, _ write: @Sendable (ByteBuffer) async throws -> Void) async throws {
        if let preamble { try await write(preamble) }
        var buffer = ByteBuffer()
        while true {
            switch await outlet.next() {
            case .write(let messages):
                buffer.clear()
                writer.append(messages, to: &buffer)
                if buffer.readableBytes > 0 { try await write(buffer) }
                outlet.wrote(messages)
            case .nudge:
                break
            case .heartbeat:
                try await write(heartbeatComment)
            case .finish:
                return
            case .stop(let reason):
                throw reason
            }
        }
    }
}

extension ServerSentEventStream {
    /// What a client's stream begins with: its `retry:` line, if any (``RetryLines``).
    package var preamble: ByteBuffer? { retryLines.pick() }
}

/// A stream's heartbeat: a comment line.
package let heartbeatComment = ByteBuffer(staticString: ": heartbeat\n\n")

extension Duration {
    /// Whole milliseconds.
    package var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
#endif
