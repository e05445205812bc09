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
        let append = try Append(topic: topic, payloads: payloads, key: idempotencyKey)
        try await ensureTables()   // on a connection of the log's: not in the caller's transaction
        return try Self.ids(of: try await run([append], on: connection)[0])
    }

    /// Appends `payloads` to `topic`, in order, in a transaction of their own; returns their ids.
    /// Errors as ``append(_:to:idempotencyKey:)``'s.
    @discardableResult
    public func append(contentsOf payloads: [String], to topic: String, idempotencyKey: String? = nil) async throws -> [EventID] {
        guard !payloads.isEmpty else { return [] }
        let append = try Append(topic: topic, payloads: payloads, key: idempotencyKey)
        if let committer { return try Self.ids(of: try await committer.append(append, log: self)) }
        return try Self.ids(of: try await commit([append])[0])
    }

    /// The ids of one append of ``run(_:on:)`` (`nil`: its key was used before with something else).
    static func ids(of appended: [EventID]?) throws -> [EventID] {
        guard let appended else {
            throw PostgresEventLogError(.idempotencyKeyReused, "the idempotency key was used before with another topic or payload")
        }
        return appended
    }

    /// Commits `appends` in one statement of its own (one transaction): ``run(_:on:)`` on a
    /// connection of the log's, within ``timeout``. Throws a ``PostgresEventLogError`` that says
    /// whether they may have been committed.
    func commit(_ appends: [Append]) async throws -> [[EventID]?] {
        let sent = NIOLockedValueBox(false)
        do {
            return try await onConnection(timeout: timeout) { connection in
                sent.withLockedValue { $0 = true }
                return try await self.run(appends, on: connection)
            }
        } catch {
            // Nothing was sent without a connection: not appended. Once sent, only PostgreSQL's own
            // refusal says it was not; a timeout or a lost connection leaves it unknown.
            throw PostgresEventLogError.classify(error, broken: sent.withLockedValue { $0 } ? .outcomeUnknown : .unavailable,
                                                 sent: sent.withLockedValue { $0 })
        }
    }

    /// Appends `appends` in one statement on `connection`, in their order (each topic's positions
    /// follow it); returns each one's ids (`nil`: its key was used before with something else).
    /// Appends without a key to one topic are the plain statement; others, the log's function.
    func run(_ appends: [Append], on connection: PostgresConnection) async throws -> [[EventID]?] {
        if let topic = appends.first?.topic, appends.allSatisfy({ $0.key == nil && $0.topic == topic }) {
            let payloads = appends.count == 1 ? appends[0].payloads : appends.flatMap(\.payloads)
            var ids = try await Self.appended(try await connection.query(plainQuery(payloads, topic), logger: logger),
                                              count: payloads.count)[...]
            return appends.map { append in
                defer { ids = ids.dropFirst(append.payloads.count) }
                return Array(ids.prefix(append.payloads.count))
            }
        }
        let rows = try await connection.query(groupQuery(appends), logger: logger)
        var answers = [[EventID]?](repeating: nil, count: appends.count)
        var answered = [Bool](repeating: false, count: appends.count)
        var again: [Int] = []   // keys trimmed between their claim and their answer: claimed again
        for try await (request, epoch, last, outcome) in rows.decode((Int32, String?, Int64?, String).self) {
            let index = Int(request) - 1
            answered[index] = true
            switch (outcome, epoch, last) {
            case ("trimmed", _, _): again.append(index)
            case ("reused", _, _): answers[index] = nil
            case (_, let epoch?, let last?):
                answers[index] = (UInt64(last) - UInt64(appends[index].payloads.count) + 1...UInt64(last)).map {
                    EventID(epoch: epoch, position: $0)
                }
            default: throw PostgresEventLogError(.unavailable, "an append's row has no position")
            }
        }
        guard !answered.contains(false) else { throw PostgresEventLogError(.unavailable, "an append returned no row") }
        if !again.isEmpty {
            for (index, ids) in zip(again, try await run(again.map { appends[$0] }, on: connection)) { answers[index] = ids }
        }
        return answers
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
        guard Self.isValidTopic(topic) else { throw Self.invalidTopic }
    }

    static let invalidTopic = PostgresEventLogError(.invalid, "a topic name is 1 to \(maximumTopicLength) ASCII letters, digits, _ - . : or @")

    /// The statement of the log's function appending `appends` (see ``migrationSQL``): a row per
    /// append — its number from 1, its epoch, its last position, and whether it was `appended`,
    /// `repeated` (its key's first append's), its key `reused` with something else, or its key
    /// `trimmed` under it (to be appended again).
    func groupQuery(_ appends: [Append]) -> PostgresQuery {
        var (topics, keys, channels) = ([String](), [String](), [String]())
        var (owners, payloads) = ([Int32](), [String]())
        for (index, append) in appends.enumerated() {
            topics.append(append.topic)
            keys.append(append.key ?? "")   // '' stands for no key: a key is never empty
            channels.append(Self.channel(of: append.topic))
            owners += repeatElement(Int32(index + 1), count: append.payloads.count)
            payloads += append.payloads
        }
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(topics)
        bindings.append(keys)
        bindings.append(channels)
        bindings.append(owners)
        bindings.append(payloads)
        return PostgresQuery(unsafeSQL: """
            SELECT o_request, o_epoch, o_last, o_outcome
            FROM \(prefix)_append_group($1::text[], $2::text[], $3::text[], $4::int[], $5::text[])
            """, binds: bindings)
    }

    /// The statement appending `payloads` to `topic` without a key: the topic's head moved by their
    /// count (its row made if need be, and locked), its events numbered after the old head, one
    /// wake-up; it selects the topic's epoch and its new head.
    func plainQuery(_ payloads: [String], _ topic: String) -> PostgresQuery {
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
            SELECT t.epoch, t.head FROM t, LATERAL (SELECT pg_notify($3, t.head::text)) AS n
            """, binds: bindings)
    }

    /// The ids of the plain statement's `count` events.
    static func appended(_ rows: PostgresRowSequence, count: Int) async throws -> [EventID] {
        for try await (epoch, head) in rows.decode((String, Int64).self) {
            let last = UInt64(head)
            return (last - UInt64(count) + 1...last).map { EventID(epoch: epoch, position: $0) }
        }
        throw PostgresEventLogError(.unavailable, "the append returned no row")
    }
}
/// One append: its topic, its payloads, its idempotency key.
struct Append: Sendable {
    let topic: String
    let payloads: [String]
    let key: String?

    /// Throws ``PostgresEventLogError/Kind/invalid`` for what can never be appended.
    init(topic: String, payloads: [String], key: String?) throws {
        guard PostgresEventLog.isValidTopic(topic) else { throw PostgresEventLog.invalidTopic }
        guard payloads.allSatisfy({ !$0.utf8.contains(0) }) else {
            throw PostgresEventLogError(.invalid, "a payload must not contain a NUL character (PostgreSQL's text refuses it)")
        }
        if let key, !PostgresEventLog.isValidIdempotencyKey(key) {
            throw PostgresEventLogError(.invalid, "an idempotency key is 1 to 255 printable ASCII characters")
        }
        (self.topic, self.payloads, self.key) = (topic, payloads, key)
    }
}
#endif
