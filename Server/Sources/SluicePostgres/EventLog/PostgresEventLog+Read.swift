#if Server
import PostgresNIO
import SluiceFeed

extension PostgresEventLog {
    // MARK: Reading

    /// The id of `topic`'s latest event — ``/SluiceFeed/EventID/origin`` for a topic never
    /// appended to (reading writes nothing). Throws when the database does not answer within
    /// ``timeout``, or at once for a topic name outside ``isValidTopic(_:)``.
    public func head(of topic: String) async throws -> EventID {
        try check(topic: topic)
        let (logger, topics) = (logger, topics)
        return try await onConnection(timeout: timeout) { connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT epoch, head FROM \(topics) WHERE topic = $1",
                                                                binds: Self.bindings(topic)), logger: logger)
            for try await (epoch, head) in rows.decode((String, Int64).self) {
                return EventID(epoch: epoch, position: UInt64(head))
            }
            return .origin
        }
    }

    /// `topic`'s entries after `id`, in order, at most `limit` events, read in one snapshot:
    /// - the events after it, when its epoch is the topic's and they are all still there;
    /// - first a ``/SluiceFeed/LogEntry/reset(epoch:after:missed:)`` saying how many are gone, when retention
    ///   (or a truncation) removed some of them, then the events that are left;
    /// - only a reset, to the topic's head, when `id`'s epoch is not the topic's (the history it
    ///   belongs to is gone) or `id` is past the head (the database never had it: a failover lost
    ///   it, or it is forged); a reset to ``/SluiceFeed/EventID/origin`` when the topic no longer exists.
    /// ``/SluiceFeed/EventID/origin`` stands before the first event of whatever epoch the topic has.
    /// Empty: nothing after `id` yet. Throws when the database does not answer within ``timeout``.
    public func entries(of topic: String, after id: EventID, limit: Int) async throws -> [LogEntry<String>] {
        try await entries(of: topic, after: id, limit: limit, timeout: timeout)
    }

    /// ``entries(of:after:limit:)`` with a limit of its own on how long the database may take.
    func entries(of topic: String, after id: EventID, limit: Int, timeout: Duration) async throws -> [LogEntry<String>] {
        try check(topic: topic)
        return try await page(of: topic, after: id, limit: limit, timeout: timeout).entries
    }

    /// One read of `topic` after `id`: the entries, the head, and the tags a reader checks.
    func page(of topic: String, after id: EventID, limit: Int, timeout: Duration) async throws -> LogPage {
        let log = self
        return try await onConnection(timeout: timeout) { try await log.page(of: topic, after: id, limit: limit, on: $0) }
    }

    private func page(of topic: String, after id: EventID, limit: Int, on connection: PostgresConnection) async throws -> LogPage {
        var bindings = Self.bindings(topic)
        bindings.append(Int64(clamping: id.position))
        bindings.append(Int64(max(limit, 1)))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT t.epoch, t.head, t.previous_epoch, t.parted_at,
                   (SELECT tag FROM \(events) WHERE topic = t.topic AND position = $2), e.position, e.tag, e.payload
            FROM \(topics) t
            LEFT JOIN LATERAL (SELECT position, tag, payload FROM \(events)
                               WHERE topic = t.topic AND position > $2 ORDER BY position LIMIT $3) e ON true
            WHERE t.topic = $1
            """, binds: bindings), logger: logger)
        var page = LogPage(after: id)
        for try await (epoch, head, previous, partedAt, tagAtAfter, position, tag, payload)
                in rows.decode((String, Int64, String?, Int64?, Int64?, Int64?, Int64?, String?).self) {
            page.epoch = epoch
            page.head = UInt64(head)
            if let previous, let partedAt { page.parting = (previous, UInt64(partedAt)) }
            page.tagAtAfter = tagAtAfter
            if let position, let tag, let payload { page.events.append((UInt64(position), tag, payload)) }
        }
        return page
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

    /// The tags of `topic`'s events at `positions` that exist.
    func tags(of topic: String, at positions: [UInt64], timeout: Duration) async throws -> [UInt64: Int64] {
        var bindings = Self.bindings(topic)
        bindings.append(positions.map { Int64(clamping: $0) })
        let (logger, query) = (logger, PostgresQuery(unsafeSQL: """
            SELECT position, tag FROM \(events) WHERE topic = $1 AND position = ANY($2::bigint[])
            """, binds: bindings))
        return try await onConnection(timeout: timeout) { connection in
            var tags: [UInt64: Int64] = [:]
            for try await (position, tag) in try await connection.query(query, logger: logger).decode((Int64, Int64).self) {
                tags[UInt64(position)] = tag
            }
            return tags
        }
    }

    /// Gives `topic` a new epoch if its epoch is still `epoch` (its history is no longer the one
    /// handed out under it), recording that the two agree up to `agreed`; returns the topic's epoch
    /// after that — the new one, or the one another instance gave it first.
    func renewEpoch(of topic: String, from epoch: String, agreed: UInt64, timeout: Duration) async throws -> String {
        var bindings = Self.bindings(topic)
        bindings.append(epoch)
        bindings.append(EventID.randomEpoch())
        bindings.append(Int64(clamping: agreed))
        let (logger, topics, binds) = (logger, topics, bindings)
        return try await onConnection(timeout: timeout) { connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                WITH renewed AS (UPDATE \(topics) SET epoch = $3, previous_epoch = $2, parted_at = $4
                                 WHERE topic = $1 AND epoch = $2 RETURNING epoch)
                SELECT epoch FROM renewed UNION ALL SELECT epoch FROM \(topics) WHERE topic = $1 AND NOT EXISTS (SELECT 1 FROM renewed)
                """, binds: binds), logger: logger)
            for try await current in rows.decode(String.self) { return current }
            return EventID.origin.epoch   // the topic is gone
        }
    }
}

/// One read of a topic after a position: what a reader needs to tell whether the history it read
/// is still the database's.
struct LogPage {
    /// Where the read began.
    let after: EventID
    /// The topic's epoch (nil: the topic does not exist).
    var epoch: String?
    /// The topic's latest position.
    var head: UInt64 = 0
    /// The epoch before the topic's latest renewal, and the last position the two agree on.
    var parting: (epoch: String, at: UInt64)?
    /// The tag of the event at `after`'s position, when there is one.
    var tagAtAfter: Int64?
    /// The events after it: position, tag, payload.
    var events: [(position: UInt64, tag: Int64, payload: String)] = []

    init(after: EventID) {
        self.after = after
    }

    /// The page as a reader of the log's entries sees it (see `entries(of:after:limit:)`).
    var entries: [LogEntry<String>] {
        guard let epoch else { return after.isOrigin ? [] : [.reset(epoch: EventID.origin.epoch, after: 0, missed: nil)] }
        let from = after.isOrigin ? 0 : after.position
        var entries: [LogEntry<String>] = []
        if !after.isOrigin, epoch != after.epoch {
            // An id of the epoch before the latest renewal: the same events up to the parting.
            guard let parting, parting.epoch == after.epoch else { return [.reset(epoch: epoch, after: head, missed: nil)] }
            guard after.position <= parting.at else { return [.reset(epoch: epoch, after: parting.at, missed: nil)] }
            entries.append(.reset(epoch: epoch, after: after.position, missed: 0))   // renamed: nothing lost
        }
        guard from <= head else { return [.reset(epoch: epoch, after: head, missed: nil)] }   // never had it
        entries.reserveCapacity(events.count + 1)
        let firstAfter = events.first?.position ?? head + 1
        if from < head, firstAfter > from + 1 {   // trimmed away
            entries.append(.reset(epoch: epoch, after: firstAfter - 1, missed: firstAfter - 1 - from))
        }
        for event in events {
            entries.append(.event(EventID(epoch: epoch, position: event.position), event.payload))
        }
        return entries
    }
}
#endif
