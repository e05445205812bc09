import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import SluiceHummingbird
import Testing

/// ``withFeedServer(_:_:_:)``'s server with Hummingbird: an `Application` run in a `ServiceGroup`.
func startHummingbirdServer(_ endpoints: Endpoints) async throws -> (port: Int, shutDown: @Sendable () async throws -> Void) {
    let router = Router()
    if let stream = endpoints.events {
        let events = ServerSentEvents(stream: stream)
        router.get("events") { request, _ in events.response(to: request) }
    }
    let wsRouter = Router(context: BasicWebSocketRequestContext.self)
    if let stream = endpoints.socket {
        let socket = WebSocketFeed(stream: stream)
        let heard = endpoints.heard
        wsRouter.ws("ws") { inbound, outbound, context in
            let start = ResumePoint(lastEventID: context.request.uri.queryParameters["lastEventId"].map(String.init))
            if let heard {
                try await socket.serve(inbound: inbound, outbound: outbound, from: start) { incoming in
                    incoming.sink(receiveCompletion: { _ in }) { message in
                        if case .text(let text) = message { heard.withLockedValue { $0.append(text) } }
                    }
                }
            } else {
                try await socket.serve(inbound: inbound, outbound: outbound, from: start)
            }
        }
    }
    let (ports, portSink) = AsyncStream<Int>.makeStream()
    var logger = Logger(label: "FeedTransportTests")
    logger.logLevel = ProcessInfo.processInfo.environment["SLUICE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
    let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: wsRouter),
                          configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          services: endpoints.finishing.map { [$0] } ?? [],
                          onServerRunning: { channel in portSink.yield(channel.localAddress!.port!) }, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
    let running = Task { try await group.run() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    let shutDown = once {
        await group.triggerGracefulShutdown()
        try await running.value
    }
    return (port, shutDown)
}
