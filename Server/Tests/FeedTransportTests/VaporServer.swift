import Foundation
import SluiceVapor
import Testing
import Vapor

/// ``withFeedServer(_:_:_:)``'s server with Vapor: an `Application` whose server is started on a loopback
/// port and shut down as `Application.execute()` does on a signal — the lifecycle handlers
/// (``FeedShutdown``) first, then the server, which waits for the responses in flight.
func startVaporServer(_ endpoints: Endpoints) async throws -> (port: Int, shutDown: @Sendable () async throws -> Void) {
    let app = try await Application.make(.testing)
    app.logger.logLevel = ProcessInfo.processInfo.environment["SLUICE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
    if let feed = endpoints.finishing { app.lifecycle.use(FeedShutdown(feed)) }
    if let stream = endpoints.events {
        let events = ServerSentEvents(stream: stream)
        app.get("events") { request in events.response(to: request) }
    }
    if let stream = endpoints.socket {
        let socket = WebSocketFeed(stream: stream)
        let heard = endpoints.heard
        let upgrading = endpoints.upgrading
        app.webSocket("ws", shouldUpgrade: { request in
            socket.fixStart(of: request)
            upgrading?()
            return request.eventLoop.makeSucceededFuture([:])
        }) { request, ws in
            socket.serve(ws, for: request, incoming: heard.map { heard in { incoming in
                incoming.sink { message in
                    if case .text(let text) = message { heard.withLockedValue { $0.append(text) } }
                }
            } })
        }
    }
    if let topics = endpoints.topics {
        let sockets = WebSocketTopics(topics: topics.sockets)
        app.webSocket("topics") { request, socket in
            sockets.serve(socket, following: TopicEventStreams<ServerSentEvent>.topics(of: request), topic: topics.feeds.topic)
        }
    }
    let server = app.server
    try await server.start(address: .hostname("127.0.0.1", port: 0))
    let port = try #require(app.http.server.shared.localAddress?.port)
    let shutDown = once {
        try await app.asyncShutdown()   // the lifecycle handlers: the feed finishes
        await server.shutdown()
    }
    return (port, shutDown)
}
