import LiveFeedExample
import Metrics
import PostgresNIO
import Prometheus
import SluicePostgres
import SluiceVapor
import Vapor

/// The same live feed on Vapor: events by topic in a PostgreSQL event log, served to every
/// instance's clients. `GET /` a live page; `GET /events/{topic}` Server-Sent Events (resume with
/// `Last-Event-ID`); `GET /events?topic=a&topic=b` several topics on one connection; `GET /ws/{topic}` WebSocket; `POST /events/{topic}` an event (with an
/// `Idempotency-Key`, once); `GET /ready`; `GET /metrics`. Settings: ``ExampleSettings``.
@main struct VaporExample {
    static func main() async throws {
        let settings = ExampleSettings()
        let app = try await Application.make(try Environment.detect())
        app.http.server.configuration.hostname = settings.host
        app.http.server.configuration.port = settings.port                      // 0: logged as "Server started on …"
        app.http.server.configuration.idleTimeout = .seconds(60)                // a silent client is closed; streams heartbeat, sockets ping
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))

        let postgres = PostgresClient(configuration: settings.database, backgroundLogger: app.logger)
        let log = PostgresEventLog(client: postgres, logger: app.logger)       // makes its tables if missing
        let listener = PostgresEventLogListener(log: log, logger: app.logger)  // one per process, every topic
        let feeds = PostgresTopicFeeds(listener: listener) { ServerSentEvent(data: $0) }
        let trimmer = PostgresEventLogTrimmer(log: log, retention: .init(default: .init(maximumCount: 100_000)))
        app.lifecycle.use(RunServices(postgres, listener, feeds, trimmer, logger: app.logger))   // stopped first on shutdown
        /// Throws 401 or 403 unless `request` may use `topic`; returns the topic.
        @Sendable func topic(of request: Request) throws -> String {
            let topic = try request.parameters.require("topic")
            switch settings.access.decide(topic: topic, authorization: request.headers.first(name: .authorization)) {
            case .allowed: return topic
            case .unauthorized: throw Abort(.unauthorized, reason: "not authenticated")
            case .forbidden: throw Abort(.forbidden, reason: "not allowed to use \(topic)")
            }
        }

        let page = FeedPage.html(instance: settings.instance, server: "Vapor", events: "/events/lobby")
        app.get { _ in Response(status: .ok, headers: ["Content-Type": "text/html; charset=utf-8"], body: .init(string: page)) }
        app.get("events", ":topic") { request in                               // 503 while the log is unreachable
            ServerSentEvents(feed: try await feeds.feed(of: try topic(of: request))).response(to: request)
        }
        let streams = TopicEventStreams(feeds: { try await feeds.feed(of: $0) }) { request, topic in
            switch settings.access.decide(topic: topic, authorization: request.headers.first(name: .authorization)) {
            case .allowed: .allowed
            case .unauthorized: .unauthorized
            case .forbidden: .forbidden
            }
        }
        app.get("events") { request in                                         // ?topic=a&topic=b: one connection
            await streams.response(to: request, topics: TopicEventStreams<ServerSentEvent>.topics(of: request))
        }
        app.on(.POST, "events", ":topic", body: .collect(maxSize: ByteCount(value: PostedEvent.largestBody))) { request in
            let topic = try topic(of: request)
            guard case .success(let text) = PostedEvent.text(of: request.body.data?.readableBytesView ?? ByteBuffer().readableBytesView) else {
                throw Abort(.badRequest, reason: "the body must be UTF-8 text, not empty")
            }
            // Refused (400, 422) or not stored (503) as the log's error says.
            let id = try await log.append(text, to: topic, idempotencyKey: request.headers.first(name: "Idempotency-Key"))
            return Response(status: .accepted, headers: ["Content-Type": "application/json"], body: .init(string: PostedEvent.accepted(id)))
        }
        app.get("ready") { _ in listener.state.isListening ? HTTPStatus.ok : HTTPStatus.serviceUnavailable }
        app.get("metrics") { _ in
            var bytes: [UInt8] = []
            metrics.emit(into: &bytes)
            return Response(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4"], body: .init(data: Data(bytes)))
        }
        app.webSocket("ws", ":topic", shouldUpgrade: { request in
            request.eventLoop.makeFutureWithTask {
                let feed = try await feeds.feed(of: try topic(of: request))
                request.storage[TopicFeed.self] = feed
                socket(of: feed).fixStart(of: request)                         // every event from the upgrade on
                return [:]
            }
        }) { request, webSocket in
            guard let feed = request.storage[TopicFeed.self] else { return }
            socket(of: feed).serve(webSocket, for: request)
        }

        try await app.execute()                                               // until SIGTERM or SIGINT
        try await app.asyncShutdown()
    }

    /// A topic's feed as WebSocket messages.
    static func socket(of feed: EventFeed<ServerSentEvent>) -> WebSocketFeed<ServerSentEvent> {
        WebSocketFeed(feed: feed)
    }

    /// Where a WebSocket request keeps its topic's feed between the upgrade check and the upgrade.
    struct TopicFeed: StorageKey {
        typealias Value = EventFeed<ServerSentEvent>
    }
}
