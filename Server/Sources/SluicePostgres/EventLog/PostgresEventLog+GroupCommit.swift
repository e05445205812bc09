#if Server
import DequeModule
import NIOConcurrencyHelpers
import PostgresNIO
import SluiceFeed

/// How a ``PostgresEventLog`` commits standalone appends (``PostgresEventLog/append(_:to:idempotencyKey:)``
/// and ``PostgresEventLog/append(contentsOf:to:idempotencyKey:)``) made at the same time: together, in
/// one durable transaction — one round trip and one WAL flush for all of them.
///
/// A lone append is committed at once; appends made while a group is being committed queue and
/// form the next group (taken ``linger`` after the last, while appends come together), up to ``maximumEvents`` events and
/// ``maximumBytes`` of payload, with one append with an idempotency key at most (each keyed append
/// is a statement of its own, a round trip: those are not gathered with each other). One group is committed at a time, in the order the appends came, so
/// the positions of a topic's appends follow the order they were made in. Each caller is answered
/// with its own ids once the group has committed; when it fails, every caller of the group gets
/// the error (``PostgresEventLogError/Kind/outcomeUnknown`` when the answer was lost: retry with
/// the same idempotency key). Appends in a caller's transaction are never grouped.
public struct GroupCommit: Sendable {
    /// The most events in one group (1,000).
    public var maximumEvents: Int
    /// The most payload bytes in one group (8 MiB): an append larger than that is a group alone.
    public var maximumBytes: Int

    /// How long the committer waits, before it takes a group, for more appends to join it — only
    /// while appends come together (the last group held more than one), so that a lone caller's
    /// appends never wait (200 µs: with 64 producers to one topic, about 21,000 appends per second
    /// here, against 16,000 without).
    public var linger: Duration

    /// Groups of at most `maximumEvents` events and `maximumBytes` bytes, each taken `linger` after
    /// the committer is ready for it.
    public init(maximumEvents: Int = 1_000, maximumBytes: Int = 8 << 20, linger: Duration = .microseconds(200)) {
        precondition(maximumEvents > 0 && maximumBytes > 0, "a group holds at least one event")
        precondition(linger >= .zero, "linger must not be negative")
        self.maximumEvents = maximumEvents
        self.maximumBytes = maximumBytes
        self.linger = linger
    }
}

/// The queue of standalone appends and the one task that commits them, group by group.
final class GroupCommitter: Sendable {
    struct Request: Sendable {
        let topic: String
        let payloads: [String]
        let key: String?
        let bytes: Int
        let answer: CheckedContinuation<[EventID], any Error>
    }

    private struct State {
        var queue = Deque<Request>()
        var committing = false
    }

    let settings: GroupCommit
    private let state = NIOLockedValueBox(State())

    init(settings: GroupCommit) {
        self.settings = settings
    }

    /// Queues an append; returns its ids once its group has committed.
    func append(_ payloads: [String], to topic: String, key: String?, log: PostgresEventLog) async throws -> [EventID] {
        try await withCheckedThrowingContinuation { answer in
            let request = Request(topic: topic, payloads: payloads, key: key, bytes: payloads.reduce(0) { $0 + $1.utf8.count },
                                  answer: answer)
            let start = state.withLockedValue { state -> Bool in
                state.queue.append(request)
                defer { state.committing = true }
                return !state.committing
            }
            if start { Task { await self.commitGroups(log) } }
        }
    }

    /// Commits group after group until the queue is empty.
    private func commitGroups(_ log: PostgresEventLog) async {
        var gathered = false   // whether the last group had more than one append: appends come together
        while true {
            if gathered, settings.linger > .zero { try? await Task.sleep(for: settings.linger) }
            guard let group = nextGroup() else { return }
            gathered = group.count > 1
            do {
                let ids = try await log.commit(group)
                for (request, ids) in zip(group, ids) {
                    if let ids { request.answer.resume(returning: ids) } else {
                        request.answer.resume(throwing: PostgresEventLogError(
                            .idempotencyKeyReused, "the idempotency key was used before with another topic or payload"))
                    }
                }
            } catch {
                group.forEach { $0.answer.resume(throwing: error) }
            }
        }
    }

    /// The next group: requests from the head of the queue within the bounds (at least one), or
    /// `nil` when the queue is empty (the committer then stops).
    private func nextGroup() -> [Request]? {
        state.withLockedValue { state -> [Request]? in
            guard !state.queue.isEmpty else {
                state.committing = false
                return nil
            }
            var group: [Request] = []
            var (events, bytes, keyed) = (0, 0, false)
            while let next = state.queue.first,
                  group.isEmpty || (events + next.payloads.count <= settings.maximumEvents && bytes + next.bytes <= settings.maximumBytes
                                    && !(keyed && next.key != nil)) {
                group.append(state.queue.removeFirst())
                events += next.payloads.count
                bytes += next.bytes
                keyed = keyed || next.key != nil
            }
            return group
        }
    }
}

extension PostgresEventLog {
    /// Commits `group` in one transaction: one statement for every append without a key (all
    /// topics at once, each topic's row locked in the order of the names), one call of the keyed
    /// function for each keyed append — a single statement alone, without `BEGIN` and `COMMIT`. Returns each request's ids, in order (`nil`: its key was
    /// used before with something else). Throws what ``append(contentsOf:to:idempotencyKey:)``
    /// throws.
    func commit(_ group: [GroupCommitter.Request]) async throws -> [[EventID]?] {
        let plain = group.indices.filter { group[$0].key == nil }
        let keyed = group.indices.filter { group[$0].key != nil }
        let plainQuery = plain.isEmpty ? nil : groupQuery(plain.map { group[$0] })
        let keyedQueries = keyed.map { index in
            (index, keyedQuery(group[index].payloads, group[index].topic, group[index].key!))
        }
        let logger = logger
        let sent = NIOLockedValueBox(false)
        do {
            return try await onConnection(timeout: timeout) { connection in
                sent.withLockedValue { $0 = true }
                var ids = [[EventID]?](repeating: nil, count: group.count)
                // One statement commits by itself; more (keyed appends beside others) need BEGIN and COMMIT.
                let transaction = keyedQueries.count + (plainQuery == nil ? 0 : 1) > 1
                if transaction { try await connection.query("BEGIN", logger: logger) }
                do {
                    if let plainQuery {
                        var heads: [String: (epoch: String, next: UInt64)] = [:]
                        let rows = try await connection.query(plainQuery, logger: logger)
                        for try await (topic, epoch, head, count) in rows.decode((String, String, Int64, Int64).self) {
                            heads[topic] = (epoch, UInt64(head) - UInt64(count) + 1)
                        }
                        for index in plain {
                            let request = group[index]
                            guard let head = heads[request.topic] else { throw PostgresEventLogError(.unavailable, "a group append returned no row") }
                            ids[index] = (0..<UInt64(request.payloads.count)).map { EventID(epoch: head.epoch, position: head.next + $0) }
                            heads[request.topic]?.next += UInt64(request.payloads.count)
                        }
                    }
                    for (index, query) in keyedQueries {
                        do {
                            ids[index] = try await Self.appended(try await connection.query(query, logger: logger),
                                                                 count: group[index].payloads.count)
                        } catch let error as PostgresEventLogError where error.kind == .idempotencyKeyReused {
                            ids[index] = nil
                        }
                    }
                    if transaction { try await connection.query("COMMIT", logger: logger) }
                } catch {
                    if transaction { _ = try? await connection.query("ROLLBACK", logger: logger) }
                    throw error
                }
                return ids
            }
        } catch {
            throw PostgresEventLogError.classify(error, broken: sent.withLockedValue { $0 } ? .outcomeUnknown : .unavailable,
                                                 sent: sent.withLockedValue { $0 })
        }
    }

    /// One statement appending `requests` (none keyed) to their topics: each topic's head moved by
    /// its count — the rows locked in the order of the names, so two groups never wait on each
    /// other in a circle — its events numbered in the order of the requests, one wake-up per topic.
    /// Returns a row per topic: topic, epoch, head, count.
    private func groupQuery(_ requests: [GroupCommitter.Request]) -> PostgresQuery {
        if let topic = requests.first?.topic, requests.allSatisfy({ $0.topic == topic }) {   // one topic: the plain append
            return plainQuery(requests.flatMap(\.payloads), topic, selecting: "$1, t.epoch, t.head, cardinality($2::text[])::int8")
        }
        var topicOfEach: [String] = []
        var payloads: [String] = []
        var channels: [String: String] = [:]
        for request in requests {
            topicOfEach += Array(repeating: request.topic, count: request.payloads.count)
            payloads += request.payloads
            if channels[request.topic] == nil { channels[request.topic] = Self.channel(of: request.topic) }
        }
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(topicOfEach)
        bindings.append(payloads)
        bindings.append(Array(channels.keys))
        bindings.append(Array(channels.values))
        return PostgresQuery(unsafeSQL: """
            WITH input AS (
                SELECT i.topic, i.payload, i.n FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS i(topic, payload, n)
            ), counts AS (
                SELECT topic, count(*) AS c FROM input GROUP BY topic
            ), t AS (
                INSERT INTO \(topics) AS t (topic, head) SELECT topic, c FROM counts ORDER BY topic
                ON CONFLICT (topic) DO UPDATE SET head = t.head + EXCLUDED.head
                RETURNING t.topic, t.epoch, t.head
            ), e AS (
                INSERT INTO \(events) (topic, position, payload)
                SELECT i.topic, t.head - c.c + row_number() OVER (PARTITION BY i.topic ORDER BY i.n), i.payload
                FROM input i JOIN t ON t.topic = i.topic JOIN counts c ON c.topic = i.topic
            )
            SELECT t.topic, t.epoch, t.head, c.c FROM t JOIN counts c ON c.topic = t.topic
            JOIN unnest($3::text[], $4::text[]) AS ch(topic, channel) ON ch.topic = t.topic,
            LATERAL (SELECT pg_notify(ch.channel, t.head::text)) AS n
            """, binds: bindings)
    }
}
#endif
