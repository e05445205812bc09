import Foundation
import LiveFeedExample
import Prometheus
import ServiceLifecycle
import Sluice
import SluiceVapor
import Vapor

/// `--framework vapor`: the same HTTP protocol as ``FeedRoutes`` (Sluice's engine), served by
/// Vapor through SluiceVapor — the page, `GET /events[/{topic}]`, `POST /events[/{topic}]`,
/// `GET /ws[/{topic}]` (and `/ws?topic=a&topic=b`), `GET /metrics`, `GET /ready`, `GET /stats`, `POST /bench/start`. A `Service` of the process's group: it
/// starts Vapor's server, and on graceful shutdown stops it (the feeds have finished by then:
/// they shut down before it).
struct VaporFeedServer: Service {
    let routes: FeedRoutes
    let engine: SluiceEngine
    let say: @Sendable (String) -> Void

    func run() async throws {
        let app = try await Application.make(Environment(name: "production", arguments: ["sluice-feed"]))
        app.logger.logLevel = .warning
        app.routes.defaultMaxBodySize = ByteCount(value: FeedRoutes.largestPost)
        app.http.server.configuration.idleTimeout = .seconds(60)   // a silent client is closed; streams heartbeat, sockets ping
        register(on: app)
        let options = routes.options
        let server = app.server
        try await server.start(address: .hostname(options.host, port: options.port))
        let port = app.http.server.shared.localAddress?.port ?? options.port
        say("engine sluice on Vapor, serving on http://\(options.host):\(port)/")
        try? await gracefulShutdown()
        await server.shutdown()
        try await app.asyncShutdown()
    }

    private func register(on app: Application) {
        let routes = routes
        let backend = routes.backend
        let page = FeedPage.html(instance: routes.options.instance, server: "sluice-feed, engine sluice on Vapor", stats: true)
        app.get { _ in Self.response(.ok, page, type: "text/html; charset=utf-8") }
        let feed: @Sendable (String) async throws -> EventFeed<ServerSentEvent> = { topic in
            try await backend?.feeds.feed(of: topic) ?? engine.feed
        }
        app.post("events") { request in await Self.post(request, to: EventLogBackend.defaultTopic, routes) }
        if backend != nil {
            let streams = TopicEventStreams(feeds: feed)
            app.get("events") { request in
                let topics = TopicEventStreams<ServerSentEvent>.topics(of: request)
                if topics.isEmpty { return await streams.response(to: request, topic: EventLogBackend.defaultTopic) }
                return await streams.response(to: request, topics: topics)
            }
            app.get("events", ":topic") { request in await streams.response(to: request, topic: try request.parameters.require("topic")) }
            app.post("events", ":topic") { request in await Self.post(request, to: try request.parameters.require("topic"), routes) }
        } else {
            app.get("events") { request in ServerSentEvents(feed: try await feed(EventLogBackend.defaultTopic)).response(to: request) }
        }
        // The feed is fetched and the client's start fixed before the upgrade is answered (the
        // fetch may wait for PostgreSQL); the socket is then served from Vapor's synchronous
        // upgrade handler, before it reads any message. `/ws?topic=a&topic=b`: a socket of topics.
        let socketFeed: @Sendable (EventFeed<ServerSentEvent>) -> WebSocketFeed<ServerSentEvent> = { feed in
            WebSocketFeed(feed: feed)
        }
        let sockets = WebSocketTopics<ServerSentEvent>()
        let following: @Sendable (Request) -> [String] = { request in
            backend == nil ? [] : TopicEventStreams<ServerSentEvent>.topics(of: request)
        }
        let topic: @Sendable (Request) -> String = { $0.parameters.get("topic") ?? EventLogBackend.defaultTopic }
        for path: [PathComponent] in backend == nil ? [["ws"]] : [["ws"], ["ws", ":topic"]] {
            app.webSocket(path, shouldUpgrade: { request in
                request.eventLoop.makeFutureWithTask {
                    guard following(request).isEmpty else { return [:] }
                    let feed = try await feed(topic(request))
                    request.storage[SocketFeed.self] = feed
                    socketFeed(feed).fixStart(of: request)
                    return [:]
                }
            }) { request, socket in
                let topics = following(request)
                guard topics.isEmpty else { return sockets.serve(socket, following: topics, topic: routes.socketTopic) }
                guard let feed = request.storage[SocketFeed.self] else { return }
                let topic = topic(request)
                socketFeed(feed).serve(socket, for: request) { incoming in
                    incoming.sink { message in
                        if case .text(let text) = message {
                            Task { _ = await routes.post(Array(text.utf8), to: topic, idempotencyKey: nil) }
                        }
                    }
                }
            }
        }
        app.get("metrics") { _ in
            var bytes: [UInt8] = []
            routes.metrics.emit(into: &bytes)
            return Self.response(.ok, String(decoding: bytes, as: UTF8.self), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        app.get("ready") { _ in
            guard let backend else { return Self.response(.ok, "ready\n") }
            let state = backend.listener.state
            return state.isListening ? Self.response(.ok, "ready\n") : Self.response(.serviceUnavailable, "not ready: \(state)\n")
        }
        app.get("stats") { _ in Self.response(.ok, await routes.statsJSON(), type: "application/json") }
        app.post("bench", "start") { request in
            let answer = routes.startBench { try? request.query.get(String.self, at: $0) }
            return Self.response(HTTPResponseStatus(statusCode: answer.status), answer.text)
        }
    }

    /// A post's body as one event of `topic`, answered as ``PostAnswer`` says.
    private static func post(_ request: Request, to topic: String, _ routes: FeedRoutes) async -> Response {
        let body = request.body.data.map { Array($0.readableBytesView) } ?? []
        let answer = await routes.post(body, to: topic, idempotencyKey: request.headers.first(name: "Idempotency-Key"))
        let response = response(HTTPResponseStatus(statusCode: answer.status), answer.text,
                                type: answer.isJSON ? "application/json" : "text/plain; charset=utf-8")
        if answer.status == 503 { response.headers.replaceOrAdd(name: .retryAfter, value: "1") }
        if let outcome = answer.outcome { response.headers.replaceOrAdd(name: "Sluice-Outcome", value: outcome) }
        return response
    }

    private static func response(_ status: HTTPResponseStatus, _ text: String, type: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: ["Content-Type": type], body: .init(string: text))
    }

    /// Where the WebSocket route keeps a request's feed between the upgrade check and the upgrade.
    private struct SocketFeed: StorageKey {
        typealias Value = EventFeed<ServerSentEvent>
    }
}
