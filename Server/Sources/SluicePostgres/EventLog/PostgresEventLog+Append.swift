#if Server
import NIOConcurrencyHelpers
import PostgresNIO
import SluiceFeed

extension PostgresEventLog {
    // MARK: Appending

    /// Appends `payload` to `topic` on `connection` — inside the caller's transaction when one is
    /// open there, so that the event exists if and only if that transaction commits — and returns
    /// its id. Other transactions appending to `topic` wait for this one to end (see the type's
    /// notes). The topic is made on its first event.
    ///
    /// With an `idempotencyKey`, a repeat of this append (same key, topic and payload) returns the
    /// first one's id and appends nothing; the same key with another topic or payload throws
    /// ``PostgresEventLogError/Kind/idempotencyKeyReused``. Throws
    /// ``PostgresEventLogError/Kind/invalid`` before any query for a topic name outside
    /// ``isValidTopic(_:)``, a payload with a NUL character or a key outside ``isValidIdempotencyKey(_:)``.
    @discardableResult
    public func append(_ payload: String, to topic: String, idempotencyKey: String? = nil,
                       on connection: PostgresConnection) async throws -> EventID {
        try await append(contentsOf: [payload], to: topic, idempotencyKey: idempotencyKey, on: connection)[0]
    }

    /// Appends `payload` to `topic` in a transaction of its own (committed when this returns).
    /// Throws a ``PostgresEventLogError`` that says whether it may have been committed: after
    /// ``timeout`` without an answer, or a connection lost under it,
    /// ``PostgresEventLogError/Kind/outcomeUnknown`` — retry with the same `idempotencyKey` to
    /// append it once; see ``append(_:to:idempotencyKey:on:)`` for keys and what is refused.
    @discardableResult
    public func append(_ payload: String, to topic: String, idempotencyKey: String? = nil) async throws -> EventID {
        try await append(contentsOf: [payload], to: topic, idempotencyKey: idempotencyKey)[0]
    }

    /// Appends `payloads` to `topic`, in order, in one statement on `connection` (inside the caller's
    /// transaction when one is open there) and returns their ids: one lock, one wake-up and one
    /// round trip for all of them. An empty array appends nothing and returns no id. A key covers
    /// the whole batch: see ``append(_:to:idempotencyKey:on:)``.
    @discardableResult
    public func append(contentsOf payloads: [String], to topic: String, idempotencyKey: String? = nil,
                       on connection: PostgresConnection) async throws -> [EventID] {
        guard !payloads.isEmpty else { return [] }
        let query = try appendQuery(payloads, topic, idempotencyKey)
        try await ensureTables()   // on a connection of the log's: not in the caller's transaction
        return try await Self.appended(try await connection.query(query, logger: logger), count: payloads.count)
    }

    /// Appends `payloads` to `topic`, in order, in a transaction of their own; returns their ids.
    /// Errors as ``append(_:to:idempotencyKey:)``'s.
    @discardableResult
    public func append(contentsOf payloads: [String], to topic: String, idempotencyKey: String? = nil) async throws -> [EventID] {
        guard !payloads.isEmpty else { return [] }
        if let committer {
            try validate(payloads, topic, idempotencyKey)
            return try await committer.append(payloads, to: topic, key: idempotencyKey, log: self)
        }
        let (logger, query) = (logger, try appendQuery(payloads, topic, idempotencyKey))
        let sent = NIOLockedValueBox(false)
        do {
            return try await onConnection(timeout: timeout) { connection in
                sent.withLockedValue { $0 = true }
                return try await Self.appended(try await connection.query(query, logger: logger), count: payloads.count)
            }
        } catch {
            // Nothing was sent without a connection: not appended. Once sent, only PostgreSQL's own
            // refusal says it was not; a timeout or a lost connection leaves it unknown.
            throw PostgresEventLogError.classify(error, broken: sent.withLockedValue { $0 } ? .outcomeUnknown : .unavailable,
                                                 sent: sent.withLockedValue { $0 })
        }
    }

    // MARK: What is refused

    /// The longest topic name, in characters (128).
    public static let maximumTopicLength = 128

    /// Whether `topic` is a topic name: 1 to ``maximumTopicLength`` ASCII letters, digits, or
    /// `_`, `-`, `.`, `:`, `@`. Every call taking a topic refuses others before any query.
    public static func isValidTopic(_ topic: String) -> Bool {
        let bytes = topic.utf8
        return !bytes.isEmpty && bytes.count <= maximumTopicLength && bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D || byte == 0x2E || byte == 0x3A || byte == 0x40
        }
    }

    /// Whether `key` is an idempotency key: 1 to 255 printable ASCII characters (space to `~`), as
    /// an HTTP `Idempotency-Key` header carries one.
    public static func isValidIdempotencyKey(_ key: String) -> Bool {
        let bytes = key.utf8
        return !bytes.isEmpty && bytes.count <= 255 && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    /// Throws ``PostgresEventLogError/Kind/invalid`` unless `topic` is a topic name.
    func check(topic: String) throws {
        guard Self.isValidTopic(topic) else {
            throw PostgresEventLogError(.invalid, "a topic name is 1 to \(Self.maximumTopicLength) ASCII letters, digits, _ - . : or @")
        }
    }

    /// Throws ``PostgresEventLogError/Kind/invalid`` for what can never be appended.
    private func validate(_ payloads: [String], _ topic: String, _ key: String?) throws {
        try check(topic: topic)
        guard payloads.allSatisfy({ !$0.utf8.contains(0) }) else {
            throw PostgresEventLogError(.invalid, "a payload must not contain a NUL character (PostgreSQL's text refuses it)")
        }
        if let key, !Self.isValidIdempotencyKey(key) {
            throw PostgresEventLogError(.invalid, "an idempotency key is 1 to 255 printable ASCII characters")
        }
    }

    /// The keyed append's statement: the log's function, which claims the key or answers with the
    /// first append's ids.
    func keyedQuery(_ payloads: [String], _ topic: String, _ key: String) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(topic)
        bindings.append(payloads)
        bindings.append(Self.channel(of: topic))
        bindings.append(key)
        return PostgresQuery(unsafeSQL: "SELECT o_epoch, o_last, o_outcome FROM \(prefix)_append_keyed($1, $2::text[], $3, $4)",
                             binds: bindings)
    }

    private func appendQuery(_ payloads: [String], _ topic: String, _ key: String?) throws -> PostgresQuery {
        try validate(payloads, topic, key)
        if let key { return keyedQuery(payloads, topic, key) }
        return plainQuery(payloads, topic, selecting: "t.epoch, t.head, 'appended'::text")
    }

    /// The statement appending `payloads` to `topic` without a key: the topic's head moved by their
    /// count (its row made if need be, and locked), its events numbered after the old head, one
    /// wake-up; it selects `columns` (`t` is the topic's row after the append, `$1` the topic,
    /// `$2` the payloads).
    func plainQuery(_ payloads: [String], _ topic: String, selecting columns: String) -> PostgresQuery {
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
            SELECT \(columns) FROM t, LATERAL (SELECT pg_notify($3, t.head::text)) AS n
            """, binds: bindings)
    }

    static func appended(_ rows: PostgresRowSequence, count: Int) async throws -> [EventID] {
        for try await (epoch, head, outcome) in rows.decode((String, Int64, String).self) {
            if outcome == "reused" {
                throw PostgresEventLogError(.idempotencyKeyReused,
                                            "the idempotency key was used before with another topic or payload")
            }
            let last = UInt64(head)
            return (last - UInt64(count) + 1...last).map { EventID(epoch: epoch, position: $0) }
        }
        throw PostgresEventLogError(.unavailable, "the append returned no row")
    }
}
#endif
