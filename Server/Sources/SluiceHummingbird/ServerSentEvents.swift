#if Hummingbird
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import Sluice
@_exported import SluiceFeed

/// An ``/SluiceFeed/EventFeed`` served as Server-Sent Events: one `text/event-stream` response per request,
/// each a client of the feed with its own demand, buffer and ``/SluiceFeed/SlowClientPolicy``.
///
/// ```swift
/// let feed = EventFeed(prices.map { ServerSentEvent(data: $0.json, event: "price") })
/// let events = ServerSentEvents(feed: feed, options: .init(heartbeat: .seconds(15)))
/// router.get("prices") { request, _ in events.response(to: request) }
/// ```
///
/// The stream: `retry:` first; then each event as `id:` (its ``/SluiceFeed/EventID``, `<epoch>-<position>`),
/// `event:` if named,
/// `data:` lines; `: heartbeat` comments while nothing else was written for a
/// ``/SluiceFeed/ServerSentEventStream/Options/heartbeat`` interval; `event: dropped` (data `{"dropped":n}`) where this client lost
/// events by its policy; `event: reset` (data `{"missed":n}`, or `{"missed":null}` when unknown)
/// first when the client resumed from an id older than the feed's replay window, meaning "refetch
/// your state"; `event: shutdown` (data: the reason) last when the feed or the server shuts down.
///
/// - **Resume**: a request's `Last-Event-ID` header, or else its `lastEventId` query parameter,
///   is the id the client has seen last (``/SluiceFeed/EventFeed/client(from:policy:)``); one that is not an
///   id of this feed's epoch gets `event: reset` first. A feed over a log reads what the client
///   missed from the log when its memory does not reach back so far.
/// - **Demand**: a client has at most ``/SluiceFeed/ServerSentEventStream/Options/window`` events requested from its feed
///   subscription; it requests more only when its write of the previous ones to the connection
///   has completed — Hummingbird's writer waits while the channel is not writable — so a slow
///   socket leaves events in that client's buffer, where its policy applies.
/// - **Ends**: the peer closing its side (the request's inbound stream ends) stops the stream at
///   once; so does ``/SluiceFeed/SlowClientPolicy/disconnect(buffer:)``, without waiting for the stalled
///   socket. On the server's graceful shutdown (swift-service-lifecycle, through the task that
///   serves the connection) or ``/SluiceFeed/EventFeed/finish(reason:)``, the stream writes what is buffered,
///   `event: shutdown`, and ends; a client that does not read it within ``/SluiceFeed/ServerSentEventStream/Options/shutdownGrace``
///   is disconnected, so shutdown never hangs.
/// - The request's body must not have been read or replaced before ``response(to:filter:)`` (the stream
///   watches it to see the peer close).
public struct ServerSentEvents<Output: Sendable>: Sendable {
    /// How each stream behaves.
    public typealias Options = ServerSentEventStream<Output>.Options

    /// The transport-neutral stream each response writes.
    public let stream: ServerSentEventStream<Output>
    /// The feed served.
    public var feed: EventFeed<Output> { stream.feed }
    /// How each stream behaves.
    public var options: Options { stream.options }

    /// Serves `stream` (shared with other endpoints, or other frameworks).
    public init(stream: ServerSentEventStream<Output>) {
        self.stream = stream
    }

    /// Serves `feed`, whose events are ready-encoded: encoded once for all clients.
    public init(feed: EventFeed<ServerSentEvent>, options: Options = Options()) where Output == ServerSentEvent {
        stream = ServerSentEventStream(feed: feed, options: options)
    }

    /// Serves `feed`, encoding each event with `encode` for each client (map to
    /// ``/SluiceFeed/ServerSentEvent`` before the feed instead, to encode once).
    public init(feed: EventFeed<Output>, options: Options = Options(), encode: @escaping @Sendable (Output) -> ServerSentEvent) {
        stream = ServerSentEventStream(feed: feed, options: options, encode: encode)
    }

    /// Where a request resumes: after its `Last-Event-ID` header's id, else its `lastEventId` query
    /// parameter's; ``/SluiceFeed/ResumePoint/live`` when it has neither, ``/SluiceFeed/ResumePoint/unreadable(_:)`` when
    /// the one it has is not an ``/SluiceFeed/EventID``.
    public static func resumePoint(of request: Request) -> ResumePoint {
        if let header = request.headers[HTTPField.Name("Last-Event-ID")!] {
            return ResumePoint(lastEventID: header)
        }
        return ResumePoint(lastEventID: request.uri.queryParameters["lastEventId"].map(String.init))
    }

    /// A `text/event-stream` response that streams the feed to this request's client, from after
    /// its last event id. The client joins the feed when the response body begins to be written;
    /// a new client gets every event from this call on all the same (``/SluiceFeed/EventFeed/fixing(_:)``).
    /// With `filter`, the client gets only the events it accepts (what it may see): the others
    /// are skipped for it — they still count against its window — and it resumes past them.
    ///
    /// When the feed serves as many clients as it may (``/SluiceFeed/EventFeed/Options/maximumClients``),
    /// the answer is 503 with `Retry-After: 5`, and no stream.
    public func response(to request: Request, filter: (@Sendable (Output) -> Bool)? = nil) -> Response {
        answer(to: request, filter: filter).response(to: request)
    }

    /// What `request` gets: 503 while the feed is full, else its stream from after its last event id.
    func answer(to request: Request, filter: (@Sendable (Output) -> Bool)?) -> EventStreamAnswer<Output> {
        if stream.feed.isFull { return .refused(.full) }
        return .stream(self, from: stream.feed.fixing(Self.resumePoint(of: request)), filter: filter)
    }
}

/// Writes `client`'s stream as `request`'s response body through `writer`, until it ends or the
/// peer closes its side.
func serveEventStream<Output>(_ client: ServerSentEventClient<Output>, request: Request, writer: any ResponseBodyWriter) async throws {
    let box = WriterBox(writer)
    try await request.body.consumeWithInboundCloseHandler { _ in
        try await client.run { bytes in try await box.writer.write(bytes) }
    } onInboundClosed: {
        client.peerClosed()
    }
    try await box.writer.finish(nil)
}

/// The response body writer, carried to the task that writes (only that task uses it).
final class WriterBox: @unchecked Sendable {
    var writer: any ResponseBodyWriter
    init(_ writer: any ResponseBodyWriter) { self.writer = writer }
}
#endif
