#if Hummingbird
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket

extension HTTPServerBuilder {
    /// `routes` served from the event loop as in ``eventStreams(_:configuration:)``; every other
    /// connection is HTTP/1 with WebSocket upgrades, as `.http1WebSocketUpgrade(webSocketRouter:configuration:)`
    /// serves them.
    ///
    /// ```swift
    /// let app = Application(router: router,
    ///                       server: .eventStreams([.topics(streams, under: "events")], webSocketRouter: sockets))
    /// ```
    public static func eventStreams<WebSocketRouter: HTTPResponderBuilder & _HB_SendableMetatype>(
        _ routes: [EventStreamRoute],
        webSocketRouter: WebSocketRouter,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration = .init()
    ) -> HTTPServerBuilder where WebSocketRouter.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return eventStreams(routes, additionalChannelHandlers: configuration.http1.additionalChannelHandlers()) {
            HTTP1WebSocketUpgradeChannel(responder: $0, webSocketResponder: webSocketResponder, configuration: configuration)
        }
    }
}
#endif
