import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import SluiceHummingbird
import Testing

/// ``withFeedServer(_:_:_:)``'s server with Hummingbird: an `Application` run in a `ServiceGroup`.
/// `fromTheEventLoop`: `GET /events` is served from the event loop (`.eventStreams`) and is not in
/// the router, so every stream the tests read comes from there.
func startHummingbirdServer(_ endpoints: Endpoints, fromTheEventLoop: Bool = false) async throws -> (port: Int, shutDown: @Sendable () async throws -> Void) {
    let router = Router()
    var routes: [EventStreamRoute] = []
    if let stream = endpoints.events {
        let events = ServerSentEvents(stream: stream)
        if fromTheEventLoop {
            routes.append(.feed(events, at: "events"))   // not in the router: every stream comes from the loop
        } else {
            router.get("events") { request, _ in events.response(to: request) }
        }
    }
    let wsRouter = Router(context: FeedWebSocketRequestContext.self)
    if let stream = endpoints.socket {
        let socket = WebSocketFeed(stream: stream)
        let heard = endpoints.heard
        let upgrading = endpoints.upgrading
        wsRouter.ws("ws", shouldUpgrade: { request, context in
            let answer = socket.shouldUpgrade(request, context: context)
            upgrading?()
            return answer
        }) { inbound, outbound, context in
            if let heard {
                try await socket.serve(inbound: inbound, outbound: outbound, context: context) { incoming in
                    incoming.sink(receiveCompletion: { _ in }) { message in
                        if case .text(let text) = message { heard.withLockedValue { $0.append(text) } }
                    }
                }
            } else {
                try await socket.serve(inbound: inbound, outbound: outbound, context: context)
            }
        }
    }
    if let topics = endpoints.topics {
        let sockets = WebSocketTopics(topics: topics.sockets)
        wsRouter.ws("topics") { inbound, outbound, context in
            try await sockets.serve(inbound: inbound, outbound: outbound,
                                    following: TopicEventStreams<ServerSentEvent>.topics(of: context.request), topic: topics.feeds.topic)
        }
    }
    let (ports, portSink) = AsyncStream<Int>.makeStream()
    var logger = Logger(label: "FeedTransportTests")
    logger.logLevel = ProcessInfo.processInfo.environment["SLUICE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
    let app = Application(router: router,
                          server: fromTheEventLoop
                              ? .eventStreams(routes, webSocketRouter: wsRouter) : .http1WebSocketUpgrade(webSocketRouter: wsRouter),
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
