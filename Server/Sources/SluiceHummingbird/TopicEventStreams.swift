#if Hummingbird
import HTTPTypes
import Hummingbird
import NIOCore
import SluiceFeed

/// Server-Sent Events by topic: a route's handler that authorizes the request for each topic, finds
/// the topics' feeds, and streams them — `GET /events/{topic}` for one topic, `GET
/// /events?topic=a&topic=b` for several on one connection, each in one line.
///
/// ```swift
/// let streams = TopicEventStreams(feeds: { try await feeds.feed(of: $0) }) { request, topic in
///     guard let user = request.headers[.authorization].flatMap(users.find) else { return .unauthorized }
///     guard user.mayRead(topic) else { return .forbidden }
///     return .allowed { event in user.maySee(event) }
/// }
/// router.get("events/:topic") { request, context in
///     await streams.response(to: request, topic: try context.parameters.require("topic"))
/// }
/// router.get("events") { request, _ in
///     await streams.response(to: request, topics: TopicEventStreams<ServerSentEvent>.topics(of: request))
/// }
/// ```
///
/// The answer: 401 or 403 (from `authorize`, which runs for each topic: one refused topic refuses
/// the request, naming it) before any stream starts; the ``/SluiceFeed/FeedRefusal`` the feeds'
/// error tells when a topic's feed cannot be had (400 for a topic name outside the rule; 503 with
/// `Retry-After` for its log unreachable or too many feeds); 400 for a list of topics that
/// ``/SluiceFeed/TopicList/validated(_:maximum:)`` refuses (none, more than ``maximumTopics``);
/// otherwise the stream — one topic's as ``ServerSentEvents`` serves it, several topics' as
/// ``/SluiceFeed/ServerSentEventTopics`` does — with the filters `authorize` gave.
public struct TopicEventStreams<Output: Sendable>: Sendable {
    /// The feed of a topic.
    public let feeds: @Sendable (String) async throws -> EventFeed<Output>
    /// What a request may see of a topic.
    public let authorize: @Sendable (Request, String) async -> TopicAccess<Output>
    /// How each stream behaves.
    public let options: ServerSentEvents<Output>.Options
    /// The most topics one connection may follow (100).
    public var maximumTopics: Int { topicStreams.maximumTopics }
    /// A topic's feed as its streams serve it.
    private let events: @Sendable (EventFeed<Output>) -> ServerSentEvents<Output>
    /// Streams of several topics.
    private let topicStreams: ServerSentEventTopics<Output>

    /// Streams of topics' feeds of ready-encoded events: each event's frame is made once, by its
    /// feed, for every client.
    public init(feeds: @escaping @Sendable (String) async throws -> EventFeed<Output>,
                options: ServerSentEvents<Output>.Options = .init(), maximumTopics: Int = 100,
                authorize: @escaping @Sendable (Request, String) async -> TopicAccess<Output> = { _, _ in .allowed })
    where Output == ServerSentEvent {
        self.feeds = feeds
        self.options = options
        events = { ServerSentEvents(feed: $0, options: options) }
        topicStreams = ServerSentEventTopics(options: options, maximumTopics: maximumTopics)
        self.authorize = authorize
    }

    /// Streams of topics' feeds, each event encoded by `encode` for each client.
    public init(feeds: @escaping @Sendable (String) async throws -> EventFeed<Output>,
                options: ServerSentEvents<Output>.Options = .init(), maximumTopics: Int = 100,
                encode: @escaping @Sendable (Output) -> ServerSentEvent,
                authorize: @escaping @Sendable (Request, String) async -> TopicAccess<Output> = { _, _ in .allowed }) {
        self.feeds = feeds
        self.options = options
        events = { ServerSentEvents(feed: $0, options: options, encode: encode) }
        topicStreams = ServerSentEventTopics(options: options, maximumTopics: maximumTopics, encode: encode)
        self.authorize = authorize
    }

    /// The topics `request` asks for: its `topic` query parameters, in their order.
    public static func topics(of request: Request) -> [String] {
        request.uri.queryParameters[values: "topic"].map(String.init)
    }

    /// The response to `request` for `topic`.
    public func response(to request: Request, topic: String) async -> Response {
        await answer(to: request, topic: topic).response(to: request)
    }

    /// The response to `request` for `topics` on one connection (``topics(of:)``: its `?topic=`
    /// parameters); each resumes from the request's `Last-Event-ID` (a ``/SluiceFeed/TopicCursor``).
    public func response(to request: Request, topics: [String]) async -> Response {
        await answer(to: request, topics: topics).response(to: request)
    }

    /// What `request` gets for `topic`: 401 or 403 from `authorize`, the refusal the feeds' error
    /// tells, or the stream.
    func answer(to request: Request, topic: String) async -> EventStreamAnswer<Output> {
        switch await resolver.topic(topic, access: await authorize(request, topic)) {
        case .failure(let refusal): .refused(StreamRefusal(refusal))
        case .success(let (feed, filter)): events(feed).answer(to: request, filter: filter)
        }
    }

    /// What `request` gets for `names`: a refusal of the list, of one of its topics, or of a full
    /// feed; or the stream of them all.
    func answer(to request: Request, topics names: [String]) async -> EventStreamAnswer<Output> {
        let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!] ?? request.uri.queryParameters["lastEventId"].map(String.init)
        switch await resolver.topics(names, lastEventID: lastEventID, access: { await authorize(request, $0) }) {
        case .failure(let refusal): return .refused(StreamRefusal(refusal))
        case .success(let topics): return .topics(topicStreams, topics)
        }
    }

    private var resolver: TopicResolver<Output> { TopicResolver(feeds: feeds, maximumTopics: maximumTopics) }
}
#endif
