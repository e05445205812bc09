#if Server
import PostgresNIO

extension PostgresEventLog {
    // MARK: Retention

    /// Deletes what `retention` no longer keeps, from every topic, and the idempotency keys older
    /// than its ``PostgresEventLogRetention/idempotencyWindow``; returns how many events went.
    /// A topic keeps its epoch and head: a reader asking for what was deleted is told it is gone.
    /// Each statement throws when the database does not answer within ``timeout``.
    @discardableResult
    public func trim(_ retention: PostgresEventLogRetention) async throws -> Int {
        var window = PostgresBindings()
        window.append(Self.seconds(retention.idempotencyWindow))
        _ = try await deletedCount(PostgresQuery(unsafeSQL: """
            WITH gone AS (DELETE FROM \(keys) WHERE made_at < now() - make_interval(secs => $1) RETURNING 1)
            SELECT count(*) FROM gone
            """, binds: window))
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
            ageBindings.append(Self.seconds(age))
            deleted += try await deletedCount( PostgresQuery(unsafeSQL: """
                WITH gone AS (DELETE FROM \(events) e
                              WHERE e.written_at < now() - make_interval(secs => $3) AND \(scoped) RETURNING 1)
                SELECT count(*) FROM gone
                """, binds: ageBindings))
        }
        return deleted
    }

    private func deletedCount(_ query: PostgresQuery) async throws -> Int {
        let logger = logger
        return try await onConnection(timeout: timeout) { connection in
            for try await count in try await connection.query(query, logger: logger).decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
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

    /// How long an idempotency key is kept after its append (10 minutes): a repeat within it
    /// appends nothing; after it, the key may be used again.
    public var idempotencyWindow: Duration

    /// Retention by `default` for every topic, by `topics[name]` for those named there, and of
    /// idempotency keys for `idempotencyWindow`.
    public init(default: Rule, topics: [String: Rule] = [:], idempotencyWindow: Duration = .seconds(600)) {
        precondition(idempotencyWindow >= .zero, "idempotencyWindow must not be negative")
        self.default = `default`
        self.topics = topics
        self.idempotencyWindow = idempotencyWindow
    }
}

#endif
