#if Server
import NIOCore

/// Several topics' feeds as one Server-Sent Events stream per client, for any HTTP server: the
/// stream a browser's one `EventSource` follows many topics with (`GET /events?topic=a&topic=b`).
///
/// ```swift
/// let topics = ServerSentEventTopics<ServerSentEvent>()
/// // in a handler, for one client of the topics `names`:
/// let starts = TopicCursor.resumePoints(lastEventID: lastEventIDHeader, topics: names)
/// var followed: [FeedTopic<ServerSentEvent>] = []
/// for (name, start) in zip(names, starts) {
///     let feed = try await feeds.feed(of: name)
///     followed.append(FeedTopic(name, feed: feed, from: feed.fixing(start)))
/// }
/// let client = topics.client(followed)
/// try await client.run { bytes in try await body.write(bytes) }
/// ```
///
/// The stream: `retry:` first; then each event as `id:` (the connection's ``TopicCursor``: where
/// it stands in every topic), `event:` (its topic's name, so that a browser's
/// `addEventListener(topic, …)` gets it) and its `data:` lines; `: heartbeat` comments; `event:
/// reset` (data `{"topic":"…","missed":n}`) where what a topic's client asked for is gone, that
/// topic alone; `event: dropped` (data `{"topic":"…","dropped":n}`) where the client lost events of
/// a topic by its policy; `event: shutdown` last. A browser's reconnect sends the last cursor as
/// `Last-Event-ID`: every topic resumes after its own position, on any instance.
///
/// The connection is one client of each topic's feed, each with at most the options' window of
/// messages in flight; their events wait in one buffer of the connection, under one
/// ``SlowClientPolicy``: the policy's count of events and ``EventFeed/Options/bufferBytes`` of them
/// across all the topics (a busy topic may use it all), and when it is full the policy applies —
/// under ``SlowClientPolicy/disconnect(buffer:)`` the connection ends. The stream ends when any
/// topic's feed finishes (the client resumes them all).
public struct ServerSentEventTopics<Output: Sendable>: Sendable {
    /// How each client's stream behaves.
    public let options: ServerSentEventStream<Output>.Options
    /// The most topics one connection may follow (100).
    public let maximumTopics: Int
    private let encode: @Sendable (Output) -> ServerSentEvent
    private let writesFrames: Bool
    private let retryLines: RetryLines
    private let shutdownRetryLines: RetryLines

    /// Streams of topics whose feeds' events are ready-encoded: each event's `data:` lines are
    /// made once, by its feed.
    public init(options: ServerSentEventStream<Output>.Options = .init(), maximumTopics: Int = 100) where Output == ServerSentEvent {
        precondition(maximumTopics > 0, "maximumTopics must be positive")
        self.options = options
        self.maximumTopics = maximumTopics
        encode = { $0 }
        writesFrames = true
        retryLines = RetryLines(retry: options.retry, jitter: options.retryJitter)
        shutdownRetryLines = RetryLines(retry: options.shutdownRetry, jitter: options.retryJitter)
    }

    /// Streams of topics, each event encoded by `encode` for each client.
    public init(options: ServerSentEventStream<Output>.Options = .init(), maximumTopics: Int = 100,
                encode: @escaping @Sendable (Output) -> ServerSentEvent) {
        precondition(maximumTopics > 0, "maximumTopics must be positive")
        self.options = options
        self.maximumTopics = maximumTopics
        self.encode = encode
        writesFrames = false
        retryLines = RetryLines(retry: options.retry, jitter: options.retryJitter)
        shutdownRetryLines = RetryLines(retry: options.shutdownRetry, jitter: options.retryJitter)
    }

    /// A new client of `topics` (at most ``maximumTopics``, with distinct names, none of them
    /// `reset`, `dropped` or `shutdown`: ``TopicList/validated(_:maximum:)`` checks a request's),
    /// each from its start. The client joins every feed at once: ``ServerSentEventClient/run(write:)``
    /// must follow (or ``ServerSentEventClient/end()``).
    public func client(_ topics: [FeedTopic<Output>]) -> ServerSentEventClient<Output> {
        ServerSentEventClient(outlet: connect(topics), writer: writer(topics), preamble: preamble)
    }

    /// What a client's stream begins with: its `retry:` line, if any (``RetryLines``).
    package var preamble: ByteBuffer? { retryLines.pick() }

    /// Joins `topics`' feeds, the client's timers on `eventLoop` (else one of the options' loops).
    package func connect(_ topics: [FeedTopic<Output>], on eventLoop: (any EventLoop)? = nil) -> ClientOutlet {
        precondition(topics.count <= maximumTopics, "at most \(maximumTopics) topics on one connection")
        return ClientOutlet.connect(topics, options: options.stream, heartbeat: options.heartbeat, on: eventLoop)
    }

    /// The writer of one client's body.
    package func writer(_ topics: [FeedTopic<Output>]) -> ServerSentEventWriter<Output> {
        ServerSentEventWriter(encode: encode, writesFrames: writesFrames, topics: topics, shutdownRetry: shutdownRetryLines)
    }
}

/// The list of topics a request asks to follow on one connection, checked once for every
/// transport.
public enum TopicList {
    /// Why a list of topics is refused: the transports answer ``status`` (400), with
    /// ``description`` as the body.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The request names no topic.
        case empty
        /// More topics than a connection may follow.
        case tooMany(count: Int, maximum: Int)
        /// A name a stream cannot carry: empty, or with a control character.
        case invalidName(String)
        /// A name the stream's own messages have (`reset`, `dropped`, `shutdown`).
        case reservedName(String)

        /// The HTTP status of the answer: 400.
        public var status: Int { 400 }

        /// The answer's text.
        public var description: String {
            switch self {
            case .empty: "name at least one topic: ?topic=<name>"
            case .tooMany(let count, let maximum): "\(count) topics asked for; a connection follows at most \(maximum)"
            case .invalidName(let name): "not a topic name: \(jsonString(name))"
            case .reservedName(let name): "a stream of several topics cannot follow a topic named \(name)"
            }
        }
    }

    /// `names` without repeats, in their first order; throws when they are none, more than
    /// `maximum`, or a name is empty, has a control character, or is reserved.
    public static func validated(_ names: [String], maximum: Int) throws(Refusal) -> [String] {
        var seen = Set<String>()
        var list: [String] = []
        for name in names where seen.insert(name).inserted {
            guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidName(name)
            }
            guard !reservedTopicNames.contains(name) else { throw .reservedName(name) }
            list.append(name)
        }
        guard !list.isEmpty else { throw .empty }
        guard list.count <= maximum else { throw .tooMany(count: list.count, maximum: maximum) }
        return list
    }
}
#endif
