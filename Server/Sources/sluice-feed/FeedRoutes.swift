import Hummingbird
import LiveFeedExample
import HummingbirdWebSocket
import NIOCore
import Prometheus
import SluiceHummingbird

/// The server's HTTP protocol, on which the fan-out benchmark's load generator depends:
///
/// - `GET /` — ``FeedPage``.
/// - `GET /events` — Server-Sent Events, each event `id: <id>\ndata: <text>\n\n` (the other
///   engines' ids are numbers from 1; Sluice's are `<epoch>-<position>`, resumable with
///   `Last-Event-ID`). With `--postgres`, the event log's topic `feed`.
/// - `GET /events/{topic}` — with `--postgres` (or `--topics`, ``TopicsEngine``'s topics in
///   memory): the topic's events, as above.
/// - `GET /events?topic=a&topic=b…` — with `--postgres` or `--topics`: several topics on one connection, each
///   event named by its topic (`event: a`) with the connection's cursor as its `id:`
///   (`TopicCursor`: `Last-Event-ID` resumes every topic). Sluice's streams
///   (the topics', or its engine's) are served from the event loop (``eventStreamRoutes()``) when a
///   connection asks for one first.
/// - `GET /ws` — WebSocket (Sluice's engine): each event a text message `{"id":"…","data":"…"}`
///   (resume with `?lastEventId=<id>`); each text message the client sends is posted as an event.
///   With `--postgres`, `GET /ws/{topic}` too: the topic's events, messages posted to it; and
///   `GET /ws?topic=a&topic=b…`: a socket of topics (`WebSocketTopics`), whose messages subscribe
///   (`{"subscribe":"c","after":"<id>"}`) and unsubscribe (`{"unsubscribe":"a"}`), each event
///   `{"topic":"…","id":"…","data":"…"}`.
/// - `POST /events` (and, with `--postgres`, `POST /events/{topic}`) — the body (UTF-8 text, at most
///   1 MiB) becomes one event. With `--postgres` it is appended to the event log under its
///   `Idempotency-Key`, if any, and answered as ``PostAnswer`` says (202 with `{"id":"<id>"}` once
///   committed, 4xx for what can never be, 503 telling whether it may have been stored); without,
///   it goes straight into this instance's feed (202).
/// - `GET /metrics` — the process's metrics in Prometheus's text format: the feeds'
///   (`sluice_feed_…`, dimension `feed`: the topic) and the event log listener's (`sluice_log_…`).
/// - `GET /ready` — 200 while the instance can serve every event: always alone; with
///   `--postgres`, while its event log listener is listening (503 otherwise).
/// - `POST /bench/start?count=C&rate=R[&size=S]` — ``BenchRun``: 202 at once; 409 while a run is
///   under way. Into the engine's in-memory feed (not the event log); with `--topics`, each event
///   to the topic ``BenchTopics/topic(ofEvent:among:)`` draws.
/// - `GET /stats` — JSON (with `--postgres`: the default topic's feed's): `engine`, `instance`, `clients`, `published`, `delivered`, `dropped`,
///   `disconnected`, `cpuSeconds` (user + system), `rssBytes`.
struct FeedRoutes: Sendable {
    let options: FeedOptions
    let engine: any FanOutEngine
    let input: FeedInput
    let bench: BenchRun
    let backend: EventLogBackend?
    /// What `GET /metrics` shows.
    let metrics: PrometheusCollectorRegistry

    /// With `--postgres`, the topics' streams; with `--topics`, those of the topics in memory.
    var topicStreams: TopicEventStreams<ServerSentEvent>? {
        if let topics = engine as? TopicsEngine { return topics.streams }
        return backend.map { backend in TopicEventStreams(feeds: { try await backend.feeds.feed(of: $0) }) }
    }

    /// The topic of `GET /events` without a `topic` parameter: the event log's default topic, or
    /// the first in memory.
    var defaultTopic: String {
        (engine as? TopicsEngine)?.names[0] ?? EventLogBackend.defaultTopic
    }

    /// The streams served from the event loop when a connection asks for them first (as the guide's
    /// `.eventStreams` serves them): the topics with `--postgres`, else Sluice's engine's feed; none
    /// with `--streams router`. The other engines' are served by the router only.
    func eventStreamRoutes() -> [EventStreamRoute] {
        guard options.streams == .loop else { return [] }
        if let streams = topicStreams {
            return [.topicList(streams, at: "/events", orElse: defaultTopic), .topics(streams, under: "/events")]
        }
        if let sluice = engine as? SluiceEngine { return [.feed(sluice.events, at: "/events")] }
        return []
    }

    /// The largest body `POST /events` takes (1 MiB).
    static let largestPost = PostedEvent.largestBody

    /// Publishes `text` without an answer: appended to the event log's `topic` (its id, `nil` when
    /// the database cannot take it), or into this instance's feed.
    func append(_ text: String, to topic: String) async -> EventID? {
        if let backend { return await backend.append(text, to: topic) }
        input.publish(text)
        return nil
    }

    /// Publishes a post's `body` as the routes do: appended to the event log's `topic` under its
    /// `Idempotency-Key` (see ``PostAnswer``), or into this instance's feed.
    func post(_ body: [UInt8], to topic: String = EventLogBackend.defaultTopic, idempotencyKey: String?) async -> PostAnswer {
        if let backend { return await backend.post(body, to: topic, idempotencyKey: idempotencyKey) }
        if let refused = PostAnswer.refusal(body) { return refused }
        input.publish(String(decoding: body, as: UTF8.self))
        return PostAnswer(status: 202, text: "", outcome: nil)
    }

    func httpRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let page = ByteBuffer(string: FeedPage.html(instance: options.instance, server: "sluice-feed, engine \(options.engine.rawValue)", stats: true))
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: page))
        }
        if let streams = topicStreams {
            let defaultTopic = defaultTopic
            router.get("/events") { request, _ in
                let topics = TopicEventStreams<ServerSentEvent>.topics(of: request)
                if topics.isEmpty { return await streams.response(to: request, topic: defaultTopic) }
                return await streams.response(to: request, topics: topics)
            }
            router.get("/events/:topic") { request, context in
                await streams.response(to: request, topic: try context.parameters.require("topic"))
            }
            if backend != nil {
                router.post("/events/:topic") { request, context in
                    let topic = try context.parameters.require("topic")
                    return await posted(request, to: topic)
                }
            }
        } else {
            router.get("/events") { request, _ in engine.eventsResponse(to: request) }
        }
        router.post("/events") { request, _ in await posted(request, to: EventLogBackend.defaultTopic) }
        router.get("/metrics") { _, _ in
            var bytes: [UInt8] = []
            metrics.emit(into: &bytes)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("/ready") { _, _ in
            guard let backend else { return Self.text(.ok, "ready\n") }
            let state = backend.listener.state
            return state.isListening ? Self.text(.ok, "ready\n") : Self.text(.serviceUnavailable, "not ready: \(state)\n")
        }
        router.post("/bench/start") { request, _ in
            let query = request.uri.queryParameters
            let answer = startBench { query[Substring($0)].map(String.init) }
            return Self.text(.init(code: answer.status), answer.text)
        }
        router.get("/stats") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: await statsJSON())))
        }
        return router
    }

    func webSocketRouter() -> Router<FeedWebSocketRequestContext> {
        let router = Router(context: FeedWebSocketRequestContext.self)
        guard let sluice = engine as? SluiceEngine else { return router }
        let routes = self
        let backend = backend
        // A socket's feed: with --postgres, its topic's (`/ws` is the default topic); else the engine's.
        let feed: @Sendable (String) async throws -> EventFeed<ServerSentEvent> = { topic in
            try await backend?.feeds.feed(of: topic) ?? sluice.feed
        }
        let topic: @Sendable (FeedWebSocketRequestContext) -> String = { $0.parameters.get("topic") ?? EventLogBackend.defaultTopic }
        let sockets = WebSocketTopics<ServerSentEvent>()
        for path in backend == nil ? ["/ws"] : ["/ws", "/ws/:topic"] {
            // The client's start is fixed before the upgrade is answered: a client gets every event
            // from the moment its socket opens.
            router.ws(RouterPath(path), shouldUpgrade: { request, context in
                if backend != nil, !TopicEventStreams<ServerSentEvent>.topics(of: request).isEmpty { return .upgrade([:]) }
                return try await context.upgrade(request) { try await feed(topic(context)) }
            }) { inbound, outbound, context in
                // `/ws?topic=a&topic=b`: a socket of topics, subscribed to and left by its messages.
                let following = TopicEventStreams<ServerSentEvent>.topics(of: context.request)
                if backend != nil, !following.isEmpty {
                    return try await sockets.serve(inbound: inbound, outbound: outbound, following: following, topic: routes.socketTopic)
                }
                let topic = topic(context.requestContext)
                try await SluiceEngine.serveWebSocket(feed: try await feed(topic), inbound: inbound, outbound: outbound,
                                                      context: context) { text in
                    _ = await routes.post(Array(text.utf8), to: topic, idempotencyKey: nil)
                }
            }
        }
        return router
    }

    /// A topic a socket of topics subscribes to (`/ws?topic=…`, with `--postgres`): the event
    /// log's topic, from `start`.
    @Sendable func socketTopic(_ name: String, from start: ResumePoint) async throws -> FeedTopic<ServerSentEvent> {
        guard let backend else { throw TopicsNeedTheEventLog() }
        let feed = try await backend.feeds.feed(of: name)
        return FeedTopic(name, feed: feed, from: feed.fixing(start))
    }

    /// `POST /bench/start`'s answer, its query's `count`, `rate` and `size` given by `query`:
    /// 202 once the run has begun, 400 for a query outside the bounds, 409 while a run is under way.
    func startBench(_ query: (String) -> String?) -> (status: Int, text: String) {
        guard let count = query("count").flatMap({ Int($0) }), count >= 0,
              let rate = query("rate").flatMap({ Double($0) }), rate > 0, rate.isFinite,
              let size = query("size").map({ Int($0) }) ?? 0, size >= 0, size <= Self.largestPost
        else {
            return (400, "POST /bench/start?count=C&rate=R[&size=S] (C ≥ 0 events, R > 0 per second, S ≤ \(Self.largestPost) bytes)\n")
        }
        guard bench.start(count: count, rate: rate, size: size) else { return (409, "a benchmark run is already under way\n") }
        return (202, "")
    }

    /// `GET /stats`'s body; with `--topics`, the topics' counters summed (`clients` counts a
    /// connection once per topic it follows, `"clientsPerTopic":true` says so).
    func statsJSON() async -> String {
        var stats = engine.stats
        // With PostgreSQL the page's stream is the log's default topic: its feed's counters.
        if let backend, let feed = try? await backend.feeds.feed(of: EventLogBackend.defaultTopic) {
            stats = EngineStats(feed.stats)
        }
        return """
            {"engine":\(jsonString(options.engine.rawValue)),"instance":\(jsonString(options.instance)),\
            "clients":\(stats.clients),"published":\(stats.published),"delivered":\(stats.delivered),\
            "dropped":\(stats.dropped),"disconnected":\(stats.disconnected),\
            \(engine is TopicsEngine ? "\"clientsPerTopic\":true," : "")\
            "cpuSeconds":\(ProcessUsage.cpuSeconds),"rssBytes":\(ProcessUsage.residentBytes)}
            """
    }

    /// A post's body appended to `topic` (see ``PostAnswer``).
    private func posted(_ request: Request, to topic: String) async -> Response {
        var request = request
        guard let body = try? await request.collectBody(upTo: Self.largestPost + 1) else {
            return Self.answer(PostAnswer(status: 413, text: "an event is at most \(Self.largestPost) bytes\n", outcome: nil))
        }
        let key = request.headers[.init("Idempotency-Key")!]
        return Self.answer(await post(Array(body.readableBytesView), to: topic, idempotencyKey: key))
    }

    private static func answer(_ answer: PostAnswer) -> Response {
        var headers: HTTPFields = [.contentType: answer.isJSON ? "application/json" : "text/plain; charset=utf-8"]
        if answer.status == 503 { headers[.retryAfter] = "1" }
        if let outcome = answer.outcome { headers[.init("Sluice-Outcome")!] = outcome }
        return Response(status: .init(code: answer.status), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: answer.text)))
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// A socket of topics asked of an instance without `--postgres`.
struct TopicsNeedTheEventLog: Error, CustomStringConvertible {
    var description: String { "topics are served with --postgres" }
}
