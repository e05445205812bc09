import Hummingbird
import HummingbirdWebSocket
import LiveFeedExample
import Logging
import Metrics
import PostgresNIO
import Prometheus
import SluiceHummingbird
import SluicePostgres

/// A live feed on Hummingbird: events by topic in a PostgreSQL event log, served to every
/// instance's clients. `GET /` a live page; `GET /events/{topic}` Server-Sent Events (resume with
/// `Last-Event-ID`); `GET /events?topic=a&topic=b` several topics on one connection; `GET /ws/{topic}` WebSocket; `POST /events/{topic}` an event (with an
/// `Idempotency-Key`, once); `GET /ready`; `GET /metrics`. Settings: ``ExampleSettings``.
@main struct HummingbirdExample {
    static func main() async throws {
        let settings = ExampleSettings()
        let logger = Logger(label: "example")
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))

        let postgres = PostgresClient(configuration: settings.database, backgroundLogger: logger)
        let log = PostgresEventLog(client: postgres, logger: logger)          // makes its tables if missing
        let listener = PostgresEventLogListener(log: log, logger: logger)     // one per process, every topic
        let feeds = PostgresTopicFeeds(listener: listener) { ServerSentEvent(data: $0) }
        let trimmer = PostgresEventLogTrimmer(log: log, retention: .init(default: .init(maximumCount: 100_000)))
        let access = settings.access
        let streams = TopicEventStreams(feeds: { try await feeds.feed(of: $0) }) { request, topic in
            switch access.decide(topic: topic, authorization: request.headers[.authorization]) {
            case .allowed: .allowed
            case .unauthorized: .unauthorized
            case .forbidden: .forbidden
            }
        }
        /// Throws 401 or 403 unless `request` may use `topic`.
        @Sendable func authorize(_ request: Request, _ topic: String) throws {
            switch access.decide(topic: topic, authorization: request.headers[.authorization]) {
            case .allowed: return
            case .unauthorized: throw HTTPError(.unauthorized, message: "not authenticated")
            case .forbidden: throw HTTPError(.forbidden, message: "not allowed to use \(topic)")
            }
        }

        let router = Router()
        let page = FeedPage.html(instance: settings.instance, server: "Hummingbird", events: "/events/lobby")
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        router.get("events/:topic") { request, context in
            await streams.response(to: request, topic: try context.parameters.require("topic"))
        }
        router.get("events") { request, _ in                                  // ?topic=a&topic=b: one connection
            await streams.response(to: request, topics: TopicEventStreams<ServerSentEvent>.topics(of: request))
        }
        router.post("events/:topic") { request, context in
            let topic = try context.parameters.require("topic")
            try authorize(request, topic)
            let body = try await request.body.collect(upTo: PostedEvent.largestBody)   // 413 beyond
            guard case .success(let text) = PostedEvent.text(of: body.readableBytesView) else {
                throw HTTPError(.badRequest, message: "the body must be UTF-8 text, not empty")
            }
            // Refused (400, 422) or not stored (503) as the log's error says.
            let id = try await log.append(text, to: topic, idempotencyKey: request.headers[.init("Idempotency-Key")!])
            return Response(status: .accepted, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: PostedEvent.accepted(id))))
        }
        router.get("ready") { _, _ -> HTTPResponse.Status in listener.state.isListening ? .ok : .serviceUnavailable }
        router.get("metrics") { _, _ in
            var bytes: [UInt8] = []
            metrics.emit(into: &bytes)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }

        let sockets = Router(context: FeedWebSocketRequestContext.self)
        sockets.ws("ws/:topic", shouldUpgrade: { request, context in
            let topic = try context.parameters.require("topic")
            try authorize(request, topic)
            return try await context.upgrade(request) { try await feeds.feed(of: topic) }   // every event from the upgrade on
        }) { inbound, outbound, context in
            let feed = try await feeds.feed(of: try context.requestContext.parameters.require("topic"))
            let socket = WebSocketFeed(feed: feed)
            try await socket.serve(inbound: inbound, outbound: outbound, context: context)
        }

        let app = Application(
            router: router,
            server: .eventStreams([.topics(streams, under: "events"), .topicList(streams, at: "events")], webSocketRouter: sockets,
                                  gate: ConnectionGate(logger: logger)),   // a head's time and size, idle keep-alive, a connection cap
            configuration: .init(address: .hostname(settings.host, port: settings.port)),
            services: [postgres, listener, feeds, trimmer],
            onServerRunning: { settings.announce(port: $0.localAddress?.port ?? settings.port) },
            logger: logger)
        try await app.runService()                                            // until SIGTERM or SIGINT
    }
}
