#if Vapor
import NIOCore
import Sluice
@_exported import SluiceFeed
import Vapor

/// An ``/SluiceFeed/EventFeed`` served as Server-Sent Events from a Vapor route: one `text/event-stream`
/// response per request, each a client of the feed with its own demand, buffer and
/// ``/SluiceFeed/SlowClientPolicy``.
///
/// ```swift
/// let events = ServerSentEvents(feed: feed)
/// app.lifecycle.use(FeedShutdown(feed))        // the feed finishes as the app shuts down
/// app.get("events") { request in events.response(to: request) }
/// ```
///
/// The stream is ``/SluiceFeed/ServerSentEventStream``'s — `retry:`, `id:` `<epoch>-<position>`, heartbeats,
/// `event: dropped`, `event: reset`, `event: shutdown` — the same bytes as SluiceHummingbird's.
///
/// - **Resume**: a request's `Last-Event-ID` header, or else its `lastEventId` query parameter.
/// - **Demand**: at most ``/SluiceFeed/ServerSentEventStream/Options/window`` events requested; more once
///   Vapor's write of the previous ones has been flushed to the socket, so a slow socket leaves
///   events in the client's buffer, where its policy applies.
/// - **Ends**: Vapor gives a streaming response no signal of the peer closing: a client that left
///   is seen at the next write, at most two ``/SluiceFeed/ServerSentEventStream/Options/heartbeat`` intervals later.
///   ``/SluiceFeed/EventFeed/finish(reason:)`` (``FeedShutdown`` calls it when the application shuts down)
///   ends every stream after `event: shutdown`; a client that does not take it within the grace
///   period is disconnected, so shutdown never waits on a stalled client.
public struct ServerSentEvents<Output: Sendable>: Sendable {
    /// How each stream behaves.
    public typealias Options = ServerSentEventStream<Output>.Options

    /// The transport-neutral stream each response writes.
    public let stream: ServerSentEventStream<Output>

    /// Serves `stream` (shared with other endpoints, or other frameworks).
    public init(stream: ServerSentEventStream<Output>) {
        self.stream = stream
    }

    /// Serves `feed`, whose events are ready-encoded: encoded once for all clients.
    public init(feed: EventFeed<ServerSentEvent>, options: Options = Options()) where Output == ServerSentEvent {
        stream = ServerSentEventStream(feed: feed, options: options)
    }

    /// Serves `feed`, encoding each event with `encode` for each client.
    public init(feed: EventFeed<Output>, options: Options = Options(), encode: @escaping @Sendable (Output) -> ServerSentEvent) {
        stream = ServerSentEventStream(feed: feed, options: options, encode: encode)
    }

    /// Where a request resumes: after its `Last-Event-ID` header's id, else its `lastEventId` query
    /// parameter's; ``/SluiceFeed/ResumePoint/live`` when it has neither, ``/SluiceFeed/ResumePoint/unreadable(_:)`` when
    /// the one it has is not an ``/SluiceFeed/EventID``.
    public static func resumePoint(of request: Request) -> ResumePoint {
        if let header = request.headers.first(name: "Last-Event-ID") {
            return ResumePoint(lastEventID: header)
        }
        return ResumePoint(lastEventID: request.query[String.self, at: "lastEventId"])
    }

    /// A `text/event-stream` response that streams the feed to this request's client, from after
    /// its last event id. The client joins the feed when Vapor begins to write the body; a new
    /// client gets every event from this call on all the same (``/SluiceFeed/EventFeed/fixing(_:)``).
    /// With `filter`, the client gets only the events it accepts.
    ///
    /// When the feed serves as many clients as it may (``/SluiceFeed/EventFeed/Options/maximumClients``),
    /// the answer is 503 with `Retry-After: 5`, and no stream.
    public func response(to request: Request, filter: (@Sendable (Output) -> Bool)? = nil) -> Response {
        let stream = self.stream
        if stream.feed.isFull { return Self.full }
        let start = stream.feed.fixing(Self.resumePoint(of: request))
        return Self.eventStream { stream.client(from: start, filter: filter) }
    }

    /// 503 with `Retry-After: 5`: the feed serves as many clients as it may.
    static var full: Response { TopicEventStreams<Output>.response(.full) }

    /// A `text/event-stream` response whose body is the stream of the client `client` makes when
    /// Vapor begins to write it.
    static func eventStream(_ client: @escaping @Sendable () -> ServerSentEventClient<Output>) -> Response {
        var headers = HTTPHeaders()
        headers.contentType = HTTPMediaType(type: "text", subType: "event-stream")
        headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        headers.replaceOrAdd(name: "X-Accel-Buffering", value: "no")
        return Response(status: .ok, headers: headers, body: .init(asyncStream: { writer in
            let client = client()
            do {
                try await client.run { bytes in try await writer.write(.buffer(bytes)) }
                try await writer.write(.end)
            } catch {
                // The connection is dropped: Vapor closes it on a stream's error.
                try? await writer.write(.error(error))
            }
        }))
    }
}

/// Finishes feeds when a Vapor application shuts down (``/SluiceFeed/EventFeed/finish(reason:)``): every
/// client gets `event: shutdown` after what is buffered for it, and its stream ends, so that the
/// server's shutdown, which waits for responses in flight, does not wait on the feeds' endless
/// ones.
///
/// ```swift
/// app.lifecycle.use(FeedShutdown(prices, news))
/// ```
public struct FeedShutdown: LifecycleHandler {
    private let finish: @Sendable () -> Void

    /// Finishes `feeds` when the application shuts down.
    public init<each Output>(_ feeds: repeat EventFeed<each Output>) {
        var finishes: [@Sendable () -> Void] = []
        for feed in repeat each feeds {
            finishes.append { feed.finish() }
        }
        let all = finishes
        finish = { for finish in all { finish() } }
    }

    /// Finishes the feeds.
    public func shutdown(_ application: Application) {
        finish()
    }

    /// Finishes the feeds.
    public func shutdownAsync(_ application: Application) async {
        finish()
    }
}
#endif
