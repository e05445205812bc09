#if Server
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SluiceFeed

/// An event log (an outbox) in PostgreSQL: each topic's events in order, each at a **position**
/// within its topic's **epoch** — the ``/SluiceFeed/EventID`` every instance gives the event — with a payload
/// of text (no size limit but PostgreSQL's 1 GB for a value) and the time it was written.
///
/// ```swift
/// let log = PostgresEventLog(client: postgres)            // the app's PostgresClient, running
/// try await log.migrate()                                  // or run `log.migrationSQL` yourself
/// try await postgres.withTransaction(logger: logger) { connection in
///     try await connection.query("INSERT INTO orders (id, total) VALUES (\(id), \(total))", logger: logger)
///     try await log.append(orderCreatedJSON, to: "orders", on: connection)   // committed with the order, or not at all
/// }
/// ```
///
/// - **Tables**: `<prefix>_topics` (a row per topic: its epoch and its head, the latest position)
///   and `<prefix>_events` (topic, position, payload, written_at), `prefix` being `sluice_log` unless
///   given. ``migrate()`` makes them if they are missing; ``migrationSQL`` is the same SQL for a
///   migration tool.
/// - **Positions follow commit order per topic.** An append increments its topic's head with an
///   `INSERT … ON CONFLICT DO UPDATE` on the topic's row, which keeps that row locked until the
///   appending transaction ends: a second transaction appending to the same topic waits there,
///   and takes the next position only once the first has committed (or rolled back, leaving no
///   hole). So a reader that has seen position P never later finds an event below P. The price:
///   appends to one topic are serialised from the append to the commit — append last in a
///   transaction; appends to different topics do not wait for one another.
/// - **Wake-ups**: an append also sends `NOTIFY` on the topic's channel (``channel(of:)``) with the
///   position; PostgreSQL delivers it at commit, and never for a rolled-back transaction. Readers
///   read the table: a lost wake-up delays an event (until the listener's next probe), it never
///   loses one.
/// - **Epochs**: a topic's epoch is drawn when its row is made. Deleting the row (or truncating
///   both tables) loses the history; the topic's next row has a new epoch, so an id of the old one
///   is never taken for a position of the new. Deleting events only (``trim(_:)``, or truncating
///   the events table) keeps the epoch: a reader asking for them learns they are gone.
public struct PostgresEventLog: Sendable {
    /// The client that appends without a transaction of the caller's and reads.
    public let client: PostgresClient
    /// The tables' names begin with this (`sluice_log`).
    public let prefix: String
    /// How long a query the log runs on a connection of its client's — an append without a
    /// connection of the caller's, ``head(of:)``, ``entries(of:after:limit:)`` — may go unanswered
    /// before it throws a ``PostgresEventLogError`` (10 s); the connection is then closed. A connection that PostgreSQL's restart closes under a
    /// query was seen to leave the query unanswered for good (PostgresNIO 1.33); the caller (an
    /// HTTP request posting an event, a client joining a topic) gets an error instead of waiting
    /// for ever. An append that timed out may still have been committed.
    public let timeout: Duration
    let logger: Logger
    let topics: String
    let events: String

    /// A log in the tables named after `prefix`, reached through `client` (which the app runs, in
    /// its `ServiceGroup` or with `client.run()`). `prefix` is an SQL identifier: letters, digits
    /// and `_`, starting with a letter.
    public init(client: PostgresClient, prefix: String = "sluice_log", timeout: Duration = .seconds(10),
                logger: Logger = Logger(label: "SluicePostgres.EventLog")) {
        precondition(prefix.first?.isLetter == true && prefix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") },
                     "the tables' prefix must be an SQL identifier: ASCII letters, digits and _, starting with a letter")
        self.client = client
        self.prefix = prefix
        self.timeout = timeout
        self.logger = logger
        topics = "\(prefix)_topics"
        events = "\(prefix)_events"
    }

    // MARK: Tables

    /// The SQL that makes the log's tables (idempotent): for a migration tool, or ``migrate()``.
    public var migrationSQL: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(topics) (
                topic text PRIMARY KEY,
                epoch text NOT NULL DEFAULT substr(md5(random()::text || clock_timestamp()::text), 1, 12),
                head bigint NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS \(events) (
                topic text NOT NULL REFERENCES \(topics) (topic) ON DELETE CASCADE,
                position bigint NOT NULL,
                payload text NOT NULL,
                written_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (topic, position)
            )
            """,
            "CREATE INDEX IF NOT EXISTS \(events)_written_at ON \(events) (written_at)",
        ]
    }

    /// Makes the log's tables if they are missing, in one transaction.
    public func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            // Two instances migrating at once would race on CREATE TABLE IF NOT EXISTS.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(topics)))", logger: logger)
            for sql in migrationSQL { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
        }
    }

    // MARK: Appending

    /// Appends `payload` to `topic` on `connection` — inside the caller's transaction when one is
    /// open there, so that the event exists if and only if that transaction commits — and returns
    /// its id. Other transactions appending to `topic` wait for this one to end (see the type's
    /// notes). The topic is made on its first event.
    @discardableResult
    public func append(_ payload: String, to topic: String, on connection: PostgresConnection) async throws -> EventID {
        try await append(contentsOf: [payload], to: topic, on: connection)[0]
    }

    /// Appends `payload` to `topic` in a transaction of its own (committed when this returns).
    /// Throws when the database does not answer within ``timeout`` (the event may then have been
    /// committed).
    @discardableResult
    public func append(_ payload: String, to topic: String) async throws -> EventID {
        try await append(contentsOf: [payload], to: topic)[0]
    }

    /// Appends `payloads` to `topic`, in order, in one statement on `connection` (inside the caller's
    /// transaction when one is open there) and returns their ids: one lock, one wake-up and one
    /// round trip for all of them. An empty array appends nothing and returns no id.
    @discardableResult
    public func append(contentsOf payloads: [String], to topic: String, on connection: PostgresConnection) async throws -> [EventID] {
        guard !payloads.isEmpty else { return [] }
        let rows = try await connection.query(appendQuery(payloads, topic), logger: logger)
        return try await Self.appended(rows, count: payloads.count)
    }

    /// Appends `payloads` to `topic`, in order, in a transaction of their own; returns their ids.
    /// Throws when the database does not answer within ``timeout`` (the events may then have been
    /// committed).
    @discardableResult
    public func append(contentsOf payloads: [String], to topic: String) async throws -> [EventID] {
        guard !payloads.isEmpty else { return [] }
        let (logger, query) = (logger, appendQuery(payloads, topic))
        return try await onConnection(timeout: timeout) { connection in
            try await Self.appended(try await connection.query(query, logger: logger), count: payloads.count)
        }
    }

    private func appendQuery(_ payloads: [String], _ topic: String) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(topic)
        bindings.append(payloads)
        bindings.append(Self.channel(of: topic))
        return PostgresQuery(unsafeSQL: """
            WITH t AS (
                INSERT INTO \(topics) AS t (topic, head) VALUES ($1, cardinality($2::text[]))
                ON CONFLICT (topic) DO UPDATE SET head = t.head + cardinality($2::text[])
                RETURNING t.epoch, t.head
            ), e AS (
                INSERT INTO \(events) (topic, position, payload)
                SELECT $1, t.head - cardinality($2::text[]) + p.n, p.payload
                FROM t, unnest($2::text[]) WITH ORDINALITY AS p(payload, n)
            )
            SELECT epoch, head, pg_notify($3, head::text)::text FROM t
            """, binds: bindings)
    }

    private static func appended(_ rows: PostgresRowSequence, count: Int) async throws -> [EventID] {
        for try await (epoch, head, _) in rows.decode((String, Int64, String).self) {
            let last = UInt64(head)
            return (last - UInt64(count) + 1...last).map { EventID(epoch: epoch, position: $0) }
        }
        throw PostgresEventLogError(message: "the append returned no row")
    }

    // MARK: Reading

    /// The id of `topic`'s latest event (position 0 of its epoch before the first); makes the
    /// topic, with a new epoch, if it does not exist. Throws when the database does not answer
    /// within ``timeout``.
    public func head(of topic: String) async throws -> EventID {
        let log = self
        return try await onConnection(timeout: timeout) { try await log.readHead(of: topic, on: $0) }
    }

    private func readHead(of topic: String, on connection: PostgresConnection) async throws -> EventID {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            WITH made AS (INSERT INTO \(topics) (topic) VALUES ($1) ON CONFLICT (topic) DO NOTHING RETURNING epoch, head)
            SELECT epoch, head FROM made UNION ALL SELECT epoch, head FROM \(topics) WHERE topic = $1
            """, binds: Self.bindings(topic)), logger: logger)
        for try await (epoch, head) in rows.decode((String, Int64).self) {
            return EventID(epoch: epoch, position: UInt64(head))
        }
        throw PostgresEventLogError(message: "topic \(topic) has no row")
    }

    /// `topic`'s entries after `id`, in order, at most `limit` events, read in one snapshot:
    /// - the events after it, when its epoch is the topic's and they are all still there;
    /// - first a ``/SluiceFeed/LogEntry/reset(epoch:after:missed:)`` saying how many are gone, when retention
    ///   (or a truncation) removed some of them, then the events that are left;
    /// - only a reset, to the topic's head, when `id`'s epoch is not the topic's (the history it
    ///   belongs to is gone) or the topic does not exist (it is then made).
    /// Empty: nothing after `id` yet. Throws when the database does not answer within ``timeout``.
    public func entries(of topic: String, after id: EventID, limit: Int) async throws -> [LogEntry<String>] {
        try await entries(of: topic, after: id, limit: limit, timeout: timeout)
    }

    /// ``entries(of:after:limit:)`` with a limit of its own on how long the database may take.
    func entries(of topic: String, after id: EventID, limit: Int, timeout: Duration) async throws -> [LogEntry<String>] {
        let log = self
        return try await onConnection(timeout: timeout) { try await log.entries(of: topic, after: id, limit: limit, on: $0) }
    }

    private func entries(of topic: String, after id: EventID, limit: Int, on connection: PostgresConnection) async throws -> [LogEntry<String>] {
        var bindings = Self.bindings(topic)
        bindings.append(Int64(clamping: id.position))
        bindings.append(Int64(max(limit, 1)))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT t.epoch, t.head, e.position, e.payload FROM \(topics) t
            LEFT JOIN LATERAL (SELECT position, payload FROM \(events)
                               WHERE topic = t.topic AND position > $2 ORDER BY position LIMIT $3) e ON true
            WHERE t.topic = $1
            """, binds: bindings), logger: logger)
        var epoch: String?
        var head: UInt64 = 0
        var found: [(UInt64, String)] = []
        for try await (rowEpoch, rowHead, position, payload) in rows.decode((String, Int64, Int64?, String?).self) {
            epoch = rowEpoch
            head = UInt64(rowHead)
            if let position, let payload { found.append((UInt64(position), payload)) }
        }
        guard let epoch else {
            let made = try await readHead(of: topic, on: connection)
            return [.reset(epoch: made.epoch, after: made.position, missed: nil)]
        }
        guard epoch == id.epoch else { return [.reset(epoch: epoch, after: head, missed: nil)] }
        var entries: [LogEntry<String>] = []
        entries.reserveCapacity(found.count + 1)
        let firstAfter = found.first?.0 ?? head + 1
        if id.position < head, firstAfter > id.position + 1 {   // trimmed away
            entries.append(.reset(epoch: epoch, after: firstAfter - 1, missed: firstAfter - 1 - id.position))
        }
        for (position, payload) in found {
            entries.append(.event(EventID(epoch: epoch, position: position), payload))
        }
        return entries
    }

    /// `topic`'s history, for a ``/SluiceFeed/EventFeed`` over it: its clients that resume from further back
    /// than the feed keeps in memory read it. A read that takes longer than `timeout` (30 s) fails,
    /// so that a client is never left waiting on a dead connection: its stream ends, and it can try
    /// again.
    public func history(of topic: String, timeout: Duration = .seconds(30)) -> FeedHistory<String> {
        let log = self
        return FeedHistory { after, limit in
            try await log.entries(of: topic, after: after, limit: limit, timeout: timeout)
        }
    }

    /// The heads (epoch and latest position) of those of `topics` that exist, read on `connection`.
    func heads(of topics: [String], on connection: PostgresConnection) async throws -> [String: EventID] {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(topics)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT topic, epoch, head FROM \(self.topics) WHERE topic = ANY($1::text[])
            """, binds: bindings), logger: logger)
        var heads: [String: EventID] = [:]
        for try await (topic, epoch, head) in rows.decode((String, String, Int64).self) {
            heads[topic] = EventID(epoch: epoch, position: UInt64(head))
        }
        return heads
    }

    /// `body`'s result on a connection of the client's, or a ``PostgresEventLogError`` when it has
    /// none within `timeout`; the connection is then closed, which fails the query left waiting
    /// (it would otherwise keep the connection leased for ever).
    ///
    /// A connection closed that way can be leased again before the pool hears that it closed; a
    /// call given one fails before it sends anything, so `body` is run again on another connection
    /// (twice at most). Never after this call's own limit closed its connection: it has answered.
    func onConnection<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let leased = NIOLockedValueBox<PostgresConnection?>(nil)
        let client = client
        return try await withTimeout(timeout, onTimeout: {
            let unanswered = leased.withLockedValue { leased in
                defer { leased = nil }
                return leased
            }
            try? await unanswered?.close()
        }) {
            var attempt = 1
            while true {
                do {
                    return try await client.withConnection { connection in
                        guard !connection.isClosed else { throw ClosedBeforeUse(connection: connection) }
                        leased.withLockedValue { $0 = connection }
                        defer { leased.withLockedValue { $0 = nil } }   // before the pool has it back
                        do {
                            return try await body(connection)
                        } catch let error as PSQLError where error.code == .clientClosedConnection && !Task.isCancelled {
                            throw ClosedBeforeUse(connection: connection)   // closed before this call began
                        }
                    }
                } catch let closed as ClosedBeforeUse where attempt < 3 && !Task.isCancelled {
                    // Once its closing is over, the pool has heard of it and leases another.
                    try? await closed.connection.closeFuture.get()
                    attempt += 1
                }
            }
        }
    }

    // MARK: Retention

    /// Deletes what `retention` no longer keeps, from every topic; returns how many events went.
    /// A topic keeps its epoch and head: a reader asking for what was deleted is told it is gone.
    @discardableResult
    public func trim(_ retention: PostgresEventLogRetention) async throws -> Int {
        var deleted = 0
        let overridden = Array(retention.topics.keys)
        for (topic, rule) in retention.topics {
            deleted += try await trim(rule, only: [topic], except: [])
        }
        deleted += try await trim(retention.default, only: nil, except: overridden)
        return deleted
    }

    private func trim(_ rule: PostgresEventLogRetention.Rule, only: [String]?, except: [String]) async throws -> Int {
        var deleted = 0
        var bindings = PostgresBindings()
        bindings.append(only ?? [])
        bindings.append(except)
        let scoped = only == nil
            ? "cardinality($1::text[]) = 0 AND NOT (e.topic = ANY($2::text[]))"
            : "e.topic = ANY($1::text[]) AND NOT (e.topic = ANY($2::text[]))"
        if let count = rule.maximumCount {
            var countBindings = bindings
            countBindings.append(Int64(count))
            deleted += try await deletedCount( PostgresQuery(unsafeSQL: """
                WITH gone AS (DELETE FROM \(events) e USING \(topics) t
                              WHERE e.topic = t.topic AND e.position <= t.head - $3 AND \(scoped) RETURNING 1)
                SELECT count(*) FROM gone
                """, binds: countBindings))
        }
        if let age = rule.maximumAge {
            var ageBindings = bindings
            ageBindings.append(Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18)
            deleted += try await deletedCount( PostgresQuery(unsafeSQL: """
                WITH gone AS (DELETE FROM \(events) e
                              WHERE e.written_at < now() - make_interval(secs => $3) AND \(scoped) RETURNING 1)
                SELECT count(*) FROM gone
                """, binds: ageBindings))
        }
        return deleted
    }

    private func deletedCount(_ query: PostgresQuery) async throws -> Int {
        for try await count in try await client.query(query, logger: logger).decode(Int64.self) { return Int(count) }
        return 0
    }

    // MARK: Channels

    /// The `NOTIFY` channel of `topic`'s wake-ups: `sluice_` and 16 hex digits of a hash of the
    /// name (a channel name is an identifier of at most 63 bytes; topic names are not limited).
    /// Two topics whose names share a hash share a channel: each wakes the other's readers for
    /// nothing, nothing worse.
    public static func channel(of topic: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a, 64 bits
        for byte in topic.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "sluice_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func bindings(_ topic: String) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(topic)
        return bindings
    }
}

/// How long a ``PostgresEventLog`` keeps events: a rule for every topic, and rules of their own for
/// some. ``PostgresEventLogTrimmer`` applies it.
public struct PostgresEventLogRetention: Sendable {
    /// What a topic keeps: its latest `maximumCount` events, those younger than `maximumAge`, or
    /// both limits (an event goes when it is past either). `nil` for both: everything.
    public struct Rule: Sendable {
        /// How many of a topic's latest events are kept (`nil`: no limit by count).
        public var maximumCount: Int?
        /// How long an event is kept after it was written (`nil`: no limit by age).
        public var maximumAge: Duration?

        /// A rule; `nil` limits do not apply.
        public init(maximumCount: Int? = nil, maximumAge: Duration? = nil) {
            precondition((maximumCount ?? 0) >= 0, "maximumCount must not be negative")
            self.maximumCount = maximumCount
            self.maximumAge = maximumAge
        }
    }

    /// The rule of every topic without one of its own.
    public var `default`: Rule
    /// Topics' own rules.
    public var topics: [String: Rule]

    /// Retention by `default` for every topic, and by `topics[name]` for those named there.
    public init(default: Rule, topics: [String: Rule] = [:]) {
        self.default = `default`
        self.topics = topics
    }
}

/// What went wrong with the event log that PostgreSQL itself did not report.
public struct PostgresEventLogError: Error, Sendable, CustomStringConvertible {
    /// What happened.
    public let message: String
    /// The message.
    public var description: String { message }
}

/// A leased connection that was already closed, or closing, by an earlier call's limit (see
/// `onConnection`): a query given to it fails before it is sent.
private struct ClosedBeforeUse: Error, CustomStringConvertible {
    let connection: PostgresConnection
    var description: String { "the pool leased a connection closed before use, three times in a row" }
}
#endif
