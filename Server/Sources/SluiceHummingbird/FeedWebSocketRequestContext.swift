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

    /// The start ``fixStart(of:in:)`` fixed, if it was called.
    public var fixedStart: ResumePoint? { start.withLockedValue { $0 } }
}
#endif
