#if Hummingbird
import Hummingbird
import HummingbirdWebSocket
import NIOConcurrencyHelpers
import SluiceFeed

/// A WebSocket router's request context that carries where a feed client starts from the upgrade
/// to the connection, so that a new client gets every event from the moment its upgrade was
/// answered (the connection is served a little later): ``WebSocketFeed/shouldUpgrade(_:context:)``
/// fixes the start, ``WebSocketFeed/serve(inbound:outbound:context:maxMessageSize:incoming:filter:)``
/// starts there.
///
/// ```swift
/// let wsRouter = Router(context: FeedWebSocketRequestContext.self)
/// wsRouter.ws("chat", shouldUpgrade: chat.shouldUpgrade) { inbound, outbound, context in
///     try await chat.serve(inbound: inbound, outbound: outbound, context: context)
/// }
/// ```
public struct FeedWebSocketRequestContext: RequestContext, WebSocketRequestContext {
    /// Hummingbird's storage for the request.
    public var coreContext: CoreRequestContextStorage
    /// The upgrade's WebSocket handler.
    public let webSocket: WebSocketHandlerReference<Self>
    private let start: NIOLockedValueBox<ResumePoint?>

    /// A context for a request `source` has just read.
    public init(source: Source) {
        coreContext = .init(source: source)
        webSocket = .init()
        start = .init(nil)
    }

    /// Where the client of this request starts in `feed`, fixed now: the request's `lastEventId`
    /// query parameter, and for a new client the feed's latest event (``/SluiceFeed/EventFeed/fixing(_:)``).
    /// Call it before the upgrade is answered.
    public func fixStart<Output>(of request: Request, in feed: EventFeed<Output>) {
        let asked = ResumePoint(lastEventID: request.uri.queryParameters["lastEventId"].map(String.init))
        let fixed = feed.fixing(asked)
        start.withLockedValue { $0 = fixed }
    }

    /// The answer to the upgrade of a socket whose feed `feed` gives (a topic's), the client's start
    /// fixed in that feed.
    ///
    /// When the feed cannot be had for now — a ``/SluiceFeed/FeedRefusal`` that a retry may change:
    /// its log's database unreachable, a bound reached — the upgrade is answered all the same: the
    /// handler asks for the feed again, and a handler that throws closes the socket with 1011
    /// (unexpected condition), which a client retries after a backoff. (An error thrown here would
    /// be answered by hummingbird-websocket with 400, which a client takes as final.) A refusal that
    /// retrying will not change — a topic name outside the rule — is thrown: 400.
    ///
    /// ```swift
    /// sockets.ws("ws/:topic", shouldUpgrade: { request, context in
    ///     try await context.upgrade(request) { try await feeds.feed(of: try context.parameters.require("topic")) }
    /// }) { inbound, outbound, context in … }
    /// ```
    public func upgrade<Output>(_ request: Request, feed: () async throws -> EventFeed<Output>) async throws -> RouterShouldUpgrade {
        do {
            fixStart(of: request, in: try await feed())
        } catch where FeedRefusal(error).isRetriable {
            // Upgraded without a fixed start: the handler's feed, if it can be had, starts there.
        }
        return .upgrade([:])
    }

    /// The start ``fixStart(of:in:)`` fixed, if it was called.
    public var fixedStart: ResumePoint? { start.withLockedValue { $0 } }
}
#endif
