#if Vapor
import NIOCore
import SluiceFeed
import Vapor

/// Server-Sent Events by topic from Vapor routes: authorizes the request for each topic, finds the
/// topics' feeds, and streams them — one topic (`GET /events/{topic}`) or several on one
/// connection (`GET /events?topic=a&topic=b`), with the same answers as SluiceHummingbird's.
///
/// ```swift
/// let streams = TopicEventStreams(feeds: { try await feeds.feed(of: $0) })
/// app.get("events", ":topic") { request in
///     await streams.response(to: request, topic: try request.parameters.require("topic"))
/// }
/// app.get("events") { request in
///     await streams.response(to: request, topics: TopicEventStreams<ServerSentEvent>.topics(of: request))
/// }
/// ```
///
/// The answer: 401 or 403 from `authorize` (for each topic: one refused topic refuses the
/// request, naming it); the ``/SluiceFeed/FeedRefusal`` a feed's error tells (400, or 503 with
/// `Retry-After`); 400 for a list ``/SluiceFeed/TopicList/validated(_:maximum:)`` refuses; 503
/// with `Retry-After: 5` when a feed serves as many clients as it may; else the stream.
public struct TopicEventStreams<Output: Sendable>: Sendable {
    /// The feed of a topic.
    public let feeds: @Sendable (String) async throws -> EventFeed<Output>
    /// What a request may see of a topic.
    public let authorize: @Sendable (Request, String) async -> TopicAccess<Output>
    /// How each stream behaves.
    public let options: ServerSentEvents<Output>.Options
    /// The most topics one connection may follow (100).
    public var maximumTopics: Int { topicStreams.maximumTopics }
    private let events: @Sendable (EventFeed<Output>) -> ServerSentEvents<Output>
    private let topicStreams: ServerSentEventTopics<Output>

    /// Streams of topics' feeds of ready-encoded events.
    public init(feeds: @escaping @Sendable (String) async throws -> EventFeed<Output>,
                options: ServerSentEvents<Output>.Options = .init(), maximumTopics: Int = 100,
                authorize: @escaping @Sendable (Request, String) async -> TopicAccess<Output> = { _, _ in .allowed })
    where Output == ServerSentEvent {
        self.feeds = feeds
        self.options = options
        self.authorize = authorize
        events = { ServerSentEvents(feed: $0, options: options) }
        topicStreams = ServerSentEventTopics(options: options, maximumTopics: maximumTopics)
    }

    /// Streams of topics' feeds, each event encoded by `encode` for each client.
    public init(feeds: @escaping @Sendable (String) async throws -> EventFeed<Output>,
                options: ServerSentEvents<Output>.Options = .init(), maximumTopics: Int = 100,
                encode: @escaping @Sendable (Output) -> ServerSentEvent,
                authorize: @escaping @Sendable (Request, String) async -> TopicAccess<Output> = { _, _ in .allowed }) {
        self.feeds = feeds
        self.options = options
        self.authorize = authorize
        events = { ServerSentEvents(feed: $0, options: options, encode: encode) }
        topicStreams = ServerSentEventTopics(options: options, maximumTopics: maximumTopics, encode: encode)
    }

    /// The topics `request` asks for: its `topic` query parameters, in their order.
    public static func topics(of request: Request) -> [String] {
        (try? request.query.get([String].self, at: "topic")) ?? (try? request.query.get(String.self, at: "topic")).map { [$0] } ?? []
    }

    /// The response to `request` for `topic`.
    public func response(to request: Request, topic: String) async -> Response {
        switch await resolver.topic(topic, access: await authorize(request, topic)) {
        case .failure(let refusal): Self.response(refusal)
        case .success(let (feed, filter)): events(feed).response(to: request, filter: filter)
        }
    }

    /// The response to `request` for `names` on one connection; each topic resumes from the
    /// request's `Last-Event-ID` (a ``/SluiceFeed/TopicCursor``).
    public func response(to request: Request, topics names: [String]) async -> Response {
        let lastEventID = request.headers.first(name: "Last-Event-ID") ?? request.query[String.self, at: "lastEventId"]
        switch await resolver.topics(names, lastEventID: lastEventID, access: { await authorize(request, $0) }) {
        case .failure(let refusal):
            return Self.response(refusal)
        case .success(let topics):
            let streams = topicStreams
            return ServerSentEvents<Output>.eventStream { streams.client(topics) }
        }
    }

    private var resolver: TopicResolver<Output> { TopicResolver(feeds: feeds, maximumTopics: maximumTopics) }

    /// The refusal SluiceFeed decided, as Vapor answers it: `text/plain`, with `Retry-After` if any.
    static func response(_ refusal: FeedStreamRefusal) -> Response {
        var headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
        if let retryAfter = refusal.retryAfter { headers.replaceOrAdd(name: .retryAfter, value: String(retryAfter)) }
        return Response(status: HTTPResponseStatus(statusCode: refusal.status), headers: headers, body: .init(string: refusal.text))
    }
}
#endif
