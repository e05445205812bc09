#if Hummingbird
import HTTPTypes
import Hummingbird
import NIOCore
import SluiceFeed

/// What a request may see of a topic: decided per request and topic before any stream starts.
public enum TopicAccess<Output>: Sendable {
    /// The stream may start; with `filter`, the client gets only the events it accepts.
    case allowed(filter: (@Sendable (Output) -> Bool)?)
    /// 401: the request says nobody (or nobody known).
    case unauthorized
    /// 403: the request's somebody may not see this topic.
    case forbidden

    /// The stream may start, every event shown.
    public static var allowed: TopicAccess { .allowed(filter: nil) }
}

/// Server-Sent Events by topic: a route's handler that authorizes the request for the topic, finds
/// the topic's feed, and streams it — `GET /events/{topic}` in one line.
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
/// ```
///
/// The answer: 401 or 403 (from `authorize`) before any stream starts; the ``/SluiceFeed/FeedRefusal``
/// the feeds' error tells when the topic's feed cannot be had (400 for a topic name outside the
/// rule; 503 with `Retry-After` for its log unreachable or too many feeds); otherwise the stream, as
/// ``ServerSentEvents`` serves it, with the filter `authorize` gave.
public struct TopicEventStreams<Output: Sendable>: Sendable {
    /// The feed of a topic.
    public let feeds: @Sendable (String) async throws -> EventFeed<Output>
    /// What a request may see of a topic.
    public let authorize: @Sendable (Request, String) async -> TopicAccess<Output>
    /// How each stream behaves.
    public let options: ServerSentEvents<Output>.Options
    /// A topic's feed as its streams serve it.
    private let events: @Sendable (EventFeed<Output>) -> ServerSentEvents<Output>

    /// Streams of topics' feeds of ready-encoded events: each event's frame is made once, by its
    /// feed, for every client.
    public init(feeds: @escaping @Sendable (String) async throws -> EventFeed<Output>,
                options: ServerSentEvents<Output>.Options = .init(),
                authorize: @escaping @Sendable (Request, String) async -> TopicAccess<Output> = { _, _ in .allowed })
    where Output == ServerSentEvent {
        self.feeds = feeds
        self.options = options
        events = { ServerSentEvents(feed: $0, options: options) }
        self.authorize = authorize
    }

    /// Streams of topics' feeds, each event encoded by `encode` for each client.
    public init(feeds: @escaping @Sendable (String) async throws -> EventFeed<Output>,
                options: ServerSentEvents<Output>.Options = .init(),
                encode: @escaping @Sendable (Output) -> ServerSentEvent,
                authorize: @escaping @Sendable (Request, String) async -> TopicAccess<Output> = { _, _ in .allowed }) {
        self.feeds = feeds
        self.options = options
        events = { ServerSentEvents(feed: $0, options: options, encode: encode) }
        self.authorize = authorize
    }

    /// The response to `request` for `topic`.
    public func response(to request: Request, topic: String) async -> Response {
        await answer(to: request, topic: topic).response(to: request)
    }

    /// What `request` gets for `topic`: 401 or 403 from `authorize`, the refusal the feeds' error
    /// tells, or the stream.
    func answer(to request: Request, topic: String) async -> EventStreamAnswer<Output> {
        let filter: (@Sendable (Output) -> Bool)?
        switch await authorize(request, topic) {
        case .unauthorized: return .refused(StreamRefusal(status: .unauthorized, text: "not authenticated\n", retryAfter: nil))
        case .forbidden: return .refused(StreamRefusal(status: .forbidden, text: "not allowed to read \(topic)\n", retryAfter: nil))
        case .allowed(let accepted): filter = accepted
        }
        let feed: EventFeed<Output>
        do {
            feed = try await feeds(topic)
        } catch {
            let refusal = FeedRefusal(error)
            guard refusal.isRetriable else {
                return .refused(StreamRefusal(status: .init(code: refusal.status), text: "\(error)\n", retryAfter: nil))
            }
            return .refused(StreamRefusal(status: .init(code: refusal.status),
                                          text: "the topic's events are unavailable; try again\n", retryAfter: 1))
        }
        return events(feed).answer(to: request, filter: filter)
    }
}
#endif
