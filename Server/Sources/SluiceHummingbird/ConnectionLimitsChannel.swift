#if Hummingbird
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import SluiceFeed

/// A child channel whose connections a ``ConnectionGate`` admits and holds to its limits before
/// `Base` reads them: `Base`'s pipeline comes after the gate's guard.
public struct GatedChannel<Base: ServerChildChannel>: ServerChildChannel {
    /// What `Base` makes of a connection.
    public typealias Value = Base.Value

    let base: Base
    let gate: ConnectionGate

    /// Puts the gate's guard first in the connection's pipeline, then sets `Base` up behind it.
    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(gate: gate), position: .first)
        }.flatMap { base.setup(channel: channel, logger: logger) }
    }

    /// `Base`'s handling of the connection.
    public func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTP1Channel.Configuration {
    /// This configuration with the handler that tells the gate's guard when a request's cycle
    /// ends, first among the additional handlers.
    func watchingRequestCycles() -> Self {
        var configuration = self
        let additional = additionalChannelHandlers
        configuration.additionalChannelHandlers = { [RequestCycleWatch()] + additional() }
        return configuration
    }
}

extension HTTP1WebSocketUpgradeChannel.Configuration {
    /// This configuration with its HTTP/1's ``HTTP1Channel/Configuration/watchingRequestCycles()``.
    func watchingRequestCycles() -> Self {
        Self(http1: http1.watchingRequestCycles(), ws: ws)
    }
}

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 with `configuration`, each connection admitted and held to its limits
    /// by `gate` (``ConnectionLimits``: a head's time and size, idle keep-alive, how many
    /// connections).
    ///
    /// ```swift
    /// let app = Application(router: router, server: .http1(gate: ConnectionGate()))
    /// ```
    public static func http1(gate: ConnectionGate, configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        let configuration = configuration.watchingRequestCycles()
        return HTTPServerBuilder { GatedChannel(base: HTTP1Channel(responder: $0, configuration: configuration), gate: gate) }
    }

    /// HTTP/1 with WebSocket upgrades, as `.http1WebSocketUpgrade(webSocketRouter:configuration:)`,
    /// each connection admitted and held to its limits by `gate` until it upgrades.
    public static func http1WebSocketUpgrade<WebSocketRouter: HTTPResponderBuilder & _HB_SendableMetatype>(
        webSocketRouter: WebSocketRouter,
        gate: ConnectionGate,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration = .init()
    ) -> HTTPServerBuilder where WebSocketRouter.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        let configuration = configuration.watchingRequestCycles()
        return HTTPServerBuilder { [configuration] responder in
            GatedChannel(base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                            configuration: configuration), gate: gate)
        }
    }

    /// `routes` served from the event loop as in ``eventStreams(_:configuration:)``, every
    /// connection — a stream's and any other — admitted and held to its limits by `gate`.
    public static func eventStreams(_ routes: [EventStreamRoute], gate: ConnectionGate,
                                    configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        // A stream's connection writes its answer as bytes and serves one request: no watch there.
        let watching = configuration.watchingRequestCycles()
        return HTTPServerBuilder { responder in
            GatedChannel(base: EventStreamChannel(routes: routes, additionalChannelHandlers: configuration.additionalChannelHandlers,
                                                  other: HTTP1Channel(responder: responder, configuration: watching),
                                                  streams: LoopStreamRegistry()), gate: gate)
        }
    }

    /// `routes` served from the event loop, every other connection HTTP/1 with WebSocket upgrades,
    /// as ``eventStreams(_:webSocketRouter:configuration:)``, each connection admitted and held to
    /// its limits by `gate` (a WebSocket's until it upgrades).
    public static func eventStreams<WebSocketRouter: HTTPResponderBuilder & _HB_SendableMetatype>(
        _ routes: [EventStreamRoute],
        webSocketRouter: WebSocketRouter,
        gate: ConnectionGate,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration = .init()
    ) -> HTTPServerBuilder where WebSocketRouter.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        let watching = configuration.watchingRequestCycles()
        return HTTPServerBuilder { responder in
            GatedChannel(base: EventStreamChannel(routes: routes, additionalChannelHandlers: configuration.http1.additionalChannelHandlers,
                                                  other: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                                                      configuration: watching),
                                                  streams: LoopStreamRegistry()), gate: gate)
        }
    }
}
#endif
