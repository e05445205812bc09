import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import SluiceHummingbird
import SluicePostgres

/// `--postgres`: the feeds are topics of a PostgreSQL event log shared by every instance, so an
/// event posted to any instance reaches the clients of all, with the same id everywhere.
///
/// - Posting appends to the log (its own transaction); the answer comes once it is committed.
/// - Each instance has one ``PostgresEventLogListener`` and a feed per topic in use
///   (``PostgresTopicFeeds``); a client that moves to another instance with `Last-Event-ID` gets
///   exactly what it missed, from that instance's memory or from the table.
/// - Retention: the latest ``retainedEvents`` events of each topic, trimmed every minute.
struct EventLogBackend: Sendable {
    /// The topic of `GET /events`, `POST /events` and `GET /ws`.
    static let defaultTopic = "feed"
    /// How many of each topic's latest events the log keeps.
    static let retainedEvents = 100_000

    let client: PostgresClient
    let log: PostgresEventLog
    let listener: PostgresEventLogListener
    let feeds: PostgresTopicFeeds<ServerSentEvent>
    let trimmer: PostgresEventLogTrimmer

    init(logger: Logger) {
        let environment = ProcessInfo.processInfo.environment
        var configuration = PostgresClient.Configuration(
            host: environment["SLUICE_PG_HOST"] ?? "127.0.0.1",
            port: environment["SLUICE_PG_PORT"].flatMap { Int($0) } ?? 5432,
            username: environment["SLUICE_PG_USER"] ?? "postgres",
            password: environment["SLUICE_PG_PASSWORD"],
            database: environment["SLUICE_PG_DATABASE"],
            tls: .disable)
        configuration.options.maximumConnections = 20
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        log = PostgresEventLog(client: client, logger: logger)
        listener = PostgresEventLogListener(
            log: log, options: .init(probeInterval: .seconds(2), probeTimeout: .seconds(3), maximumDelay: .seconds(2)),
            logger: logger)
        feeds = PostgresTopicFeeds(listener: listener, options: .init(replay: 1_024, policy: .dropOldest(buffer: 1_024))) {
            ServerSentEvent(data: $0)
        }
        trimmer = PostgresEventLogTrimmer(
            log: log, retention: .init(default: .init(maximumCount: Self.retainedEvents)), interval: .seconds(60))
    }

    /// Makes the log's tables, trying again while the database is not reachable yet (up to a minute).
    func migrate(say: @Sendable (String) -> Void) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                try await log.migrate()
                return
            } catch where ContinuousClock.now < deadline {
                say("the event log's tables could not be made yet (\(error)); trying again")
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Appends `text` to `topic`: its id once committed, `nil` when the database cannot take it.
    func append(_ text: String, to topic: String) async -> EventID? {
        try? await log.append(text, to: topic)
    }

    /// Appends `text` to `topic`: 202 with the event's id once committed; 503 with `Retry-After`
    /// when the database cannot take it.
    func post(_ text: String, to topic: String) async -> Response {
        guard let id = await append(text, to: topic) else {
            return Response(status: .serviceUnavailable,
                            headers: [.contentType: "text/plain; charset=utf-8", .retryAfter: "1"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: Self.unavailable)))
        }
        return Response(status: .accepted, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: Self.accepted(id))))
    }

    /// The body of a 202: the event's id.
    static func accepted(_ id: EventID) -> String { "{\"id\":\"\(id)\"}\n" }
    /// The body of a 503.
    static let unavailable = "the event could not be stored; try again\n"
}
