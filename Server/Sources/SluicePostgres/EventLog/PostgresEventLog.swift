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
/// try await log.withTransaction { connection in                      // or postgres.withTransaction
///     try await connection.query("INSERT INTO orders (id, total) VALUES (\(id), \(total))", logger: logger)
///     try await log.append(orderCreatedJSON, to: "orders", on: connection)   // committed with the order, or not at all
/// }
/// ```
///
/// - **Tables**: `<prefix>_topics` (a row per topic: its epoch and its head, the latest position)
///   and `<prefix>_events` (topic, position, payload, written_at), `prefix` being `sluice_log` unless
///   given. The log makes them itself, if they are missing, before its first query in this process
///   (``makesTables``; once, whatever the number of callers and instances); ``migrationSQL`` is the
///   same SQL for a migration tool.
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
/// - **Epochs**: a topic's epoch is drawn when its row is made, by its first append (reading a
///   topic never appended to writes nothing: its head is ``/SluiceFeed/EventID/origin``, from
///   which its first history continues). Deleting the row (or truncating the tables) loses the
///   history; the topic's next row has a new epoch, so an id of the old one is never taken for a
///   position of the new. Deleting events only (``trim(_:)``, or truncating the events table)
///   keeps the epoch: a reader asking for them learns they are gone.
/// - **History that moved is told, never skipped.** A database replaced by a copy that missed its
///   last commits (an asynchronous standby promoted, a backup restored) reuses their positions for
///   other events. Every event row carries a random 63-bit **tag**; a listener's reader keeps the
///   tags of the latest events it read (16 bytes each, 256 per topic) and checks, at each read, that
///   the event at its position still has its tag. When the head is behind the reader, or the tag
///   changed, the history it handed out is no longer the database's: the reader gives the topic a
///   new epoch, recording the old one and where the two parted (the last position whose tag still
///   agrees), and its clients a reset there, then the events of the current history. A client
///   resuming with an id of the old epoch at or before the parting goes on without a reset; after
///   it, it gets a reset there, then the current history. An id ahead of its topic's head (one the
///   database never had, or forged) gets a reset to the head.
///   The limit: positions reused while no running instance was reading the topic cannot be told
///   apart by an id alone (an id carries no tag); such a client resumes from the position it names.
/// - **Idempotent appends**: an append with an `idempotencyKey` (``isValidIdempotencyKey(_:)``)
///   appends once; a repeat — after a timeout, a lost connection, on another instance, or at the
///   same time — returns the first append's ids and appends nothing, while the key is kept (the
///   retention's ``PostgresEventLogRetention/idempotencyWindow``, 10 minutes). The same key with
///   another topic or other payloads throws ``PostgresEventLogError/Kind/idempotencyKeyReused``.
///   In a caller's transaction, use PostgreSQL's default isolation (read committed); a repeat waits
///   for the first append's transaction to end.
/// - **Errors tell what a retry does** (``PostgresEventLogError/Kind``): a topic name outside
///   ``isValidTopic(_:)`` or a payload with a NUL character is refused before any query; a
///   standalone append that timed out or lost its connection is ``PostgresEventLogError/Kind/outcomeUnknown``;
///   ``withTransaction(_:)`` tells the same of the caller's transaction. A route of Hummingbird or
///   Vapor that throws one answers with its ``PostgresEventLogError/httpStatus`` (503 with
///   `Retry-After` while the database is unavailable).
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
    let keys: String

    /// How standalone appends made at the same time are committed together (`nil`: each in a
    /// transaction of its own).
    public var groupCommit: GroupCommit? { committer?.settings }
    let committer: GroupCommitter?
    /// How many standalone appends wait for their group now, in every lane (see
    /// ``GroupCommit/maximumWaiting``): 0 without group commit.
    public var waitingAppends: Int { committer?.lanesNow.reduce(0) { $0 + $1.waiting } ?? 0 }
    /// Whether the log makes its tables itself before its first query in this process (`true`);
    /// `false` where a migration tool runs ``migrationSQL`` before the app starts.
    public let makesTables: Bool
    let tableMaker = TableMaker()

    /// A log in the tables named after `prefix`, reached through `client` (which the app runs, in
    /// its `ServiceGroup` or with `client.run()`). `prefix` is an SQL identifier: letters, digits
    /// and `_`, starting with a letter. Standalone appends made at the same time are committed
    /// together by `groupCommit` (`nil`: each in a transaction of its own).
    public init(client: PostgresClient, prefix: String = "sluice_log", timeout: Duration = .seconds(10),
                groupCommit: GroupCommit? = GroupCommit(), makesTables: Bool = true,
                logger: Logger = Logger(label: "SluicePostgres.EventLog")) {
        self.makesTables = makesTables
        committer = groupCommit.map(GroupCommitter.init(settings:))
        precondition(prefix.first?.isLetter == true && prefix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") },
                     "the tables' prefix must be an SQL identifier: ASCII letters, digits and _, starting with a letter")
        self.client = client
        self.prefix = prefix
        self.timeout = timeout
        self.logger = logger
        topics = "\(prefix)_topics"
        events = "\(prefix)_events"
        keys = "\(prefix)_keys"
    }

    // MARK: Tables

    /// The SQL that makes the log's tables and its function (idempotent, and brings tables made by
    /// an earlier version up to date): for a migration tool, or ``migrate()``.
    public var migrationSQL: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(topics) (
                topic text PRIMARY KEY,
                epoch text NOT NULL DEFAULT substr(md5(random()::text || clock_timestamp()::text), 1, 12),
                head bigint NOT NULL DEFAULT 0,
                previous_epoch text,
                parted_at bigint
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS \(events) (
                topic text NOT NULL REFERENCES \(topics) (topic) ON DELETE CASCADE,
                position bigint NOT NULL,
                payload text NOT NULL,
                written_at timestamptz NOT NULL DEFAULT now(),
                tag bigint NOT NULL DEFAULT (random() * 9.2e18)::bigint,
                PRIMARY KEY (topic, position)
            )
            """,
            "CREATE INDEX IF NOT EXISTS \(events)_written_at ON \(events) (written_at)",
            // Tables of an earlier version have no tag nor parting yet (altered only then: ALTER locks the table).
            """
            DO $do$ BEGIN
                IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '\(events)'::regclass AND attname = 'tag') THEN
                    ALTER TABLE \(events) ADD COLUMN tag bigint NOT NULL DEFAULT (random() * 9.2e18)::bigint;
                END IF;
                IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '\(topics)'::regclass AND attname = 'parted_at') THEN
                    ALTER TABLE \(topics) ADD COLUMN previous_epoch text, ADD COLUMN parted_at bigint;
                END IF;
            END $do$
            """,
            """
            CREATE TABLE IF NOT EXISTS \(keys) (
                key text PRIMARY KEY,
                topic text NOT NULL,
                digest text NOT NULL,
                epoch text,
                last bigint,
                made_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX IF NOT EXISTS \(keys)_made_at ON \(keys) (made_at)",
            // Appends in one round trip, as many as the caller gathered (a group commit's, or one
            // keyed append). Each key is claimed by its first request (a repeat waits here for the
            // first append's transaction); the requests without a key and those that claimed one
            // are appended, each topic's row locked in the order of the names (keys, then topics:
            // two groups never wait on each other in a circle); the others answer with what their
            // key's first append got, or `trimmed` when the key went between the two statements
            // (the caller appends those again). Each statement of a function reads a snapshot of
            // its own, so a claim's winner is seen at once. '' stands for no key.
            """
            CREATE OR REPLACE FUNCTION \(prefix)_append_group(p_topics text[], p_keys text[], p_channels text[],
                                                              p_requests int[], p_payloads text[])
            RETURNS TABLE (o_request int, o_epoch text, o_last bigint, o_outcome text) LANGUAGE plpgsql AS $fn$
            DECLARE
                v_keyed boolean;
                v_digests text[];
                v_chosen boolean[];
            BEGIN
                p_keys := array_replace(p_keys, '', NULL);
                v_keyed := cardinality(array_remove(p_keys, NULL)) > 0;
                IF v_keyed THEN
                    SELECT array_agg(CASE WHEN r.key IS NULL THEN NULL ELSE md5(r.topic || chr(31) || g.payloads::text) END ORDER BY r.n)
                    INTO v_digests
                    FROM unnest(p_topics, p_keys) WITH ORDINALITY AS r(topic, key, n)
                    JOIN (SELECT p.request, array_agg(p.payload ORDER BY p.i) AS payloads
                          FROM unnest(p_requests, p_payloads) WITH ORDINALITY AS p(request, payload, i) GROUP BY p.request) g
                      ON g.request = r.n;
                    WITH first AS (
                        SELECT DISTINCT ON (p_keys[n]) n FROM generate_subscripts(p_keys, 1) AS n
                        WHERE p_keys[n] IS NOT NULL ORDER BY p_keys[n], n
                    ), claim AS (
                        INSERT INTO \(keys) (key, topic, digest) SELECT p_keys[n], p_topics[n], v_digests[n] FROM first ORDER BY p_keys[n]
                        ON CONFLICT (key) DO NOTHING RETURNING key
                    )
                    SELECT array_agg(p_keys[r] IS NULL OR c.key IS NOT NULL ORDER BY r) INTO v_chosen
                    FROM generate_subscripts(p_keys, 1) AS r LEFT JOIN first f ON f.n = r LEFT JOIN claim c ON c.key = p_keys[f.n];
                END IF;
                RETURN QUERY
                WITH input AS (
                    SELECT p_topics[p.request] AS topic, p.request, p.payload, p.i
                    FROM unnest(p_requests, p_payloads) WITH ORDINALITY AS p(request, payload, i)
                    WHERE NOT v_keyed OR v_chosen[p.request]
                ), numbered AS (
                    SELECT topic, request, payload, row_number() OVER (PARTITION BY topic ORDER BY i) AS rn,
                           count(*) OVER (PARTITION BY topic) AS c
                    FROM input
                ), t AS (
                    INSERT INTO \(topics) AS t (topic, head) SELECT topic, c FROM numbered WHERE rn = 1 ORDER BY topic
                    ON CONFLICT (topic) DO UPDATE SET head = t.head + EXCLUDED.head
                    RETURNING t.topic, t.epoch, t.head
                ), placed AS (
                    SELECT n.request, n.topic, n.payload, t.epoch, t.head - n.c + n.rn AS position
                    FROM numbered n JOIN t ON t.topic = n.topic
                ), e AS (
                    INSERT INTO \(events) (topic, position, payload) SELECT topic, position, payload FROM placed
                ), done AS (
                    SELECT request, min(epoch) AS epoch, max(position) AS last FROM placed GROUP BY request
                ), k AS (
                    UPDATE \(keys) k SET epoch = d.epoch, last = d.last FROM done d WHERE v_keyed AND k.key = p_keys[d.request]
                ), woken AS (
                    SELECT count(pg_notify(p_channels[r.n], t.head::text)) AS c
                    FROM t JOIN (SELECT DISTINCT ON (topic) topic, n FROM unnest(p_topics) WITH ORDINALITY AS x(topic, n)
                                 ORDER BY topic) r ON r.topic = t.topic
                )
                SELECT d.request::int, d.epoch, d.last, 'appended'::text FROM done d, woken;
                IF v_keyed THEN
                    RETURN QUERY
                    SELECT n::int, k.epoch, k.last,
                           CASE WHEN k.key IS NULL THEN 'trimmed' WHEN k.digest = v_digests[n] THEN 'repeated' ELSE 'reused' END
                    FROM generate_subscripts(p_keys, 1) AS n LEFT JOIN \(keys) k ON k.key = p_keys[n]
                    WHERE NOT v_chosen[n];
                END IF;
            END
            $fn$
            """,
        ]
    }

    /// Makes the log's tables if they are missing, in one transaction. The log does it itself
    /// before its first query (``makesTables``): call it to have the tables now.
    public func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            // Two instances migrating at once would race on CREATE TABLE IF NOT EXISTS.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(topics)))", logger: logger)
            for sql in migrationSQL { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
        }
        tableMaker.made()
    }

    /// Makes the tables unless they were made in this process (or ``makesTables`` is off): once,
    /// the callers of the moment waiting for the same migration; one that failed (the database
    /// unreachable: ``PostgresEventLogError/Kind/unavailable``) is tried again by the next caller.
    func ensureTables() async throws {
        guard makesTables, !tableMaker.isDone else { return }
        let (log, timeout) = (self, timeout)
        do {
            try await tableMaker.make { try await withTimeout(timeout) { try await log.migrate() } }
        } catch {
            throw PostgresEventLogError.classify(error, broken: .unavailable, sent: false)
        }
    }

    /// `body`'s result on a connection of the client's, or a ``PostgresEventLogError`` when it has
    /// none within `timeout`; the connection is then closed, which fails the query left waiting
    /// (it would otherwise keep the connection leased for ever).
    ///
    /// A connection closed that way can be leased again before the pool hears that it closed; a
    /// call given one fails before it sends anything, so `body` is run again on another connection
    /// (twice at most). Never after this call's own limit closed its connection: it has answered.
    func onConnection<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await ensureTables()
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

/// A leased connection that was already closed, or closing, by an earlier call's limit (see
/// `onConnection`): a query given to it fails before it is sent.
private struct ClosedBeforeUse: Error, CustomStringConvertible {
    let connection: PostgresConnection
    var description: String { "the pool leased a connection closed before use, three times in a row" }
}
#endif
