import Foundation
import Prometheus
import ServiceLifecycle
import Sluice
import SluiceVapor
import Vapor

/// `--framework vapor`: the same HTTP protocol as ``FeedRoutes`` (Sluice's engine), served by
/// Vapor through SluiceVapor — the page, `GET /events[/{topic}]`, `POST /events[/{topic}]`,
/// `GET /ws`, `GET /metrics`, `GET /ready`, `GET /stats`. A `Service` of the process's group: it
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
        let page = FeedPage.html(instance: routes.options.instance, engine: "sluice (Vapor)")
        app.get { _ in Self.response(.ok, page, type: "text/html; charset=utf-8") }
        let feed: @Sendable (String) async throws -> EventFeed<ServerSentEvent> = { topic in
            try await backend?.feeds.feed(of: topic) ?? engine.feed
        }
        app.get("events") { request in ServerSentEvents(feed: try await feed(EventLogBackend.defaultTopic)).response(to: request) }
        app.post("events") { request in await Self.post(request, to: EventLogBackend.defaultTopic, routes) }
        if backend != nil {
            app.get("events", ":topic") { request in
                ServerSentEvents(feed: try await feed(try request.parameters.require("topic"))).response(to: request)
            }
            app.post("events", ":topic") { request in await Self.post(request, to: try request.parameters.require("topic"), routes) }
        }
        // The feed is fetched before the upgrade (that may wait for PostgreSQL); the socket is then
        // served from Vapor's synchronous upgrade handler, before it reads any message.
        app.webSocket("ws", shouldUpgrade: { request in
            request.eventLoop.makeFutureWithTask {
                request.storage[SocketFeed.self] = try await feed(EventLogBackend.defaultTopic)
                return [:]
            }
        }) { request, socket in
            guard let feed = request.storage[SocketFeed.self] else { return }
            let start = ResumePoint(lastEventID: request.query[String.self, at: "lastEventId"])
            WebSocketFeed(feed: feed) { id, event in
                .text("{\"id\":\(jsonString(id.description)),\"data\":\(jsonString(event.data))}")
            }.serve(socket, from: start) { incoming in
                incoming.sink { message in
                    if case .text(let text) = message, !text.isEmpty, text.utf8.count <= FeedRoutes.largestPost {
                        Task { _ = await routes.append(text, to: EventLogBackend.defaultTopic) }
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
    }

    /// A post's body as one event of `topic`: 202 with its id once committed (or at once, without
    /// PostgreSQL), 503 when the database cannot take it, 400 when the body is not text.
    private static func post(_ request: Request, to topic: String, _ routes: FeedRoutes) async -> Response {
        guard let body = request.body.string, !body.isEmpty else {
            return response(.badRequest, "the body must be UTF-8 text, not empty\n")
        }
        guard let backend = routes.backend else {
            routes.input.publish(body)
            return Response(status: .accepted)
        }
        guard let id = await backend.append(body, to: topic) else {
            let response = response(.serviceUnavailable, EventLogBackend.unavailable)
            response.headers.replaceOrAdd(name: .retryAfter, value: "1")
            return response
        }
        return response(.accepted, EventLogBackend.accepted(id), type: "application/json")
    }

    private static func response(_ status: HTTPResponseStatus, _ text: String, type: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: ["Content-Type": type], body: .init(string: text))
    }

    /// Where the WebSocket route keeps a request's feed between the upgrade check and the upgrade.
    private struct SocketFeed: StorageKey {
        typealias Value = EventFeed<ServerSentEvent>
    }
}
