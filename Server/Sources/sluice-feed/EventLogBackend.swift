import Foundation
import Hummingbird
import LiveFeedExample
import Logging
import NIOPosix
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

    /// The thread of the database's connections, for the life of the process.
    static let databaseLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    let client: PostgresClient
    let log: PostgresEventLog
    let listener: PostgresEventLogListener
    let feeds: PostgresTopicFeeds<ServerSentEvent>
    let trimmer: PostgresEventLogTrimmer

    /// The backend of the `SLUICE_PG_…` database; its feeds end their streams after
    /// `partitionLimit` without the database.
    init(logger: Logger, partitionLimit: Duration) {
        var configuration = ExampleSettings().database   // the SLUICE_PG_… variables
        configuration.options.maximumConnections = 20
        // The database's connections on a loop of their own: an append's round trip does not wait
        // behind the reconnects of a crowd on the server's loops (FIGURES: the stampede).
        client = PostgresClient(configuration: configuration, eventLoopGroup: Self.databaseLoop, backgroundLogger: logger)
        log = PostgresEventLog(client: client, logger: logger)
        listener = PostgresEventLogListener(
            log: log, options: .init(probeInterval: .seconds(2), probeTimeout: .seconds(3), maximumDelay: .seconds(2)),
            logger: logger)
        feeds = PostgresTopicFeeds(listener: listener, options: .init(replay: 1_024, policy: .dropOldest(buffer: 1_024)),
                                   partitionLimit: partitionLimit) {
            ServerSentEvent(data: $0)
        }
        trimmer = PostgresEventLogTrimmer(
            log: log, retention: .init(default: .init(maximumCount: Self.retainedEvents)), interval: .seconds(60))
    }

    /// Appends `text` to `topic`: its id once committed, `nil` when the database cannot take it.
    func append(_ text: String, to topic: String) async -> EventID? {
        try? await log.append(text, to: topic)
    }

    /// Appends a post's `body` to `topic` under `key` (its `Idempotency-Key`, if any) and says how to
    /// answer: see ``PostAnswer``.
    func post(_ body: [UInt8], to topic: String, idempotencyKey key: String?) async -> PostAnswer {
        if let refused = PostAnswer.refusal(body) { return refused }
        do {
            return .accepted(try await log.append(String(decoding: body, as: UTF8.self), to: topic, idempotencyKey: key))
        } catch {
            return .failed(PostgresEventLogError.classified(error))
        }
    }
}

/// How the example answers `POST /events[/{topic}]`, for both frameworks:
/// - 202 `{"id":"<id>"}` once committed — and the same to a repeat with the same `Idempotency-Key`
///   (1 to 255 printable ASCII characters), which appends nothing;
/// - 400 for what can never be appended: a body that is empty or not UTF-8 (decoded validating), one
///   with a NUL character, a topic name outside the log's rule, a malformed key; 413 over 1 MiB;
/// - 422 for a key used before with another topic or body;
/// - 503 with `Retry-After` when the database cannot take it: `Sluice-Outcome: not-stored`, or
///   `Sluice-Outcome: unknown` when the event may have been stored (retry with the same key to
///   store it once; without one a retry may store it twice).
struct PostAnswer: Sendable {
    let status: Int
    let text: String
    let outcome: String?
    var isJSON: Bool { status == 202 }

    static func accepted(_ id: EventID) -> PostAnswer {
        PostAnswer(status: 202, text: "{\"id\":\"\(id)\"}\n", outcome: nil)
    }

    /// The log's own answer to `error` (see ``/SluicePostgres/PostgresEventLogError/httpStatus``).
    static func failed(_ error: PostgresEventLogError) -> PostAnswer {
        PostAnswer(status: error.httpStatus, text: error.httpReason + "\n",
                   outcome: error.httpHeaders.first { $0.name == "Sluice-Outcome" }?.value)
    }

    /// The answer to a post whose body can never be an event (413 over 1 MiB, 400 for a body empty
    /// or not UTF-8); `nil` when it may be. What else can never be appended (a NUL, a topic name
    /// outside the rule, a malformed key) the log refuses itself, before any query.
    static func refusal(_ body: [UInt8]) -> PostAnswer? {
        if body.count > PostedEvent.largestBody {
            return PostAnswer(status: 413, text: "an event is at most \(PostedEvent.largestBody) bytes\n", outcome: nil)
        }
        if case .failure(let refusal) = PostedEvent.text(of: body) {
            return PostAnswer(status: 400, text: "\(refusal)\n", outcome: nil)
        }
        return nil
    }
}

extension PostgresEventLogError {
    /// `error` as a log error (any other error: the outcome is not known).
    static func classified(_ error: any Error) -> PostgresEventLogError {
        error as? PostgresEventLogError ?? PostgresEventLogError(.outcomeUnknown, "\(error)")
    }
}
