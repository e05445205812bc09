import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The server's HTTP protocol, on which the fan-out benchmark's load generator depends:
///
/// - `GET /` — ``FeedPage``.
/// - `GET /events` — Server-Sent Events, each event `id: <n>\ndata: <text>\n\n`.
/// - `GET /ws` — WebSocket (Sluice's engine): each event a text message `{"id":n,"data":"…"}`
///   (resume with `?lastEventId=n`); each text message the client sends is posted as an event.
/// - `POST /events` — the body (UTF-8 text) becomes one event: through PostgreSQL to every
///   instance with `--postgres`, else straight into this instance's feed. 202.
/// - `POST /bench/start?count=C&rate=R[&size=S]` — ``BenchRun``: 202 at once; 409 while a run is
///   under way.
/// - `GET /stats` — JSON: `engine`, `instance`, `clients`, `published`, `delivered`, `dropped`,
///   `disconnected`, `cpuSeconds` (user + system), `rssBytes`.
struct FeedRoutes: Sendable {
    let options: FeedOptions
    let engine: any FanOutEngine
    let input: FeedInput
    let bench: BenchRun
    let relay: PostgresRelay?

    /// The largest body `POST /events` takes: PostgreSQL's `NOTIFY` takes payloads of less than
    /// 8,000 bytes; the same limit applies without it, so that an instance behaves the same alone.
    static let largestPost = 7_999

    /// Publishes `text` as the routes do: to every instance through PostgreSQL, or locally.
    func post(_ text: String) {
        if let relay { relay.post(text) } else { input.publish(text) }
    }

    func httpRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let page = ByteBuffer(string: FeedPage.html(instance: options.instance, engine: options.engine.rawValue))
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: page))
        }
        router.get("/events") { request, _ in engine.eventsResponse(to: request) }
        router.post("/events") { request, _ in
            var request = request
            guard let body = try? await request.collectBody(upTo: Self.largestPost + 1), body.readableBytes <= Self.largestPost else {
                return Self.text(.contentTooLarge, "an event is at most \(Self.largestPost) bytes\n")
            }
            guard let text = body.getString(at: body.readerIndex, length: body.readableBytes), !text.isEmpty else {
                return Self.text(.badRequest, "the body must be UTF-8 text, not empty\n")
            }
            post(text)
            return Response(status: .accepted)
        }
        router.post("/bench/start") { request, _ in
            let query = request.uri.queryParameters
            guard let count = query["count"].flatMap({ Int($0) }), count >= 0,
                  let rate = query["rate"].flatMap({ Double($0) }), rate > 0, rate.isFinite,
                  let size = query["size"].map({ Int($0) }) ?? 0, size >= 0, size <= Self.largestPost
            else {
                return Self.text(.badRequest, "POST /bench/start?count=C&rate=R[&size=S] (C ≥ 0 events, R > 0 per second, S ≤ \(Self.largestPost) bytes)\n")
            }
            guard bench.start(count: count, rate: rate, size: size) else {
                return Self.text(.conflict, "a benchmark run is already under way\n")
            }
            return Response(status: .accepted)
        }
        router.get("/stats") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: statsJSON())))
        }
        return router
    }

    func webSocketRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        guard let sluice = engine as? SluiceEngine else { return router }
        let routes = self
        router.ws("/ws") { inbound, outbound, context in
            let after = context.request.uri.queryParameters["lastEventId"].flatMap { UInt64($0) }
            try await sluice.serveWebSocket(inbound: inbound, outbound: outbound, after: after) { text in
                if !text.isEmpty, text.utf8.count <= Self.largestPost { routes.post(text) }
            }
        }
        return router
    }

    /// `GET /stats`'s body.
    func statsJSON() -> String {
        let stats = engine.stats
        return """
            {"engine":\(jsonString(options.engine.rawValue)),"instance":\(jsonString(options.instance)),\
            "clients":\(stats.clients),"published":\(stats.published),"delivered":\(stats.delivered),\
            "dropped":\(stats.dropped),"disconnected":\(stats.disconnected),\
            "cpuSeconds":\(ProcessUsage.cpuSeconds),"rssBytes":\(ProcessUsage.residentBytes)}
            """
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
