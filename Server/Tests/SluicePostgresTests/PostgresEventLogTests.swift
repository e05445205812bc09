import Foundation
import NIOConcurrencyHelpers
import Logging
import PostgresNIO
import Sluice
import SluiceFeed
import SluicePostgres
import Testing

/// The event log against a real PostgreSQL server: appends inside the caller's transaction,
/// positions in commit order, payloads far beyond NOTIFY's 8,000 bytes, retention, epochs.
@Suite struct PostgresEventLogTests {
    let logger = Logger(label: "test")

    @Test func anEventExistsIfAndOnlyIfItsTransactionCommits() async throws {
        try await TestDatabase.withLog { log in
            let orders = "\(log.prefix)_orders"
            try await log.client.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(orders) (id int PRIMARY KEY)"), logger: logger)
            // Committed: the order row and its event together.
            let id = try await log.client.withTransaction(logger: logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(orders) VALUES (1)"), logger: logger)
                return try await log.append(#"{"order":1}"#, to: "orders", on: connection)
            }
            #expect(id.position == 1)
            // Rolled back (the closure throws after appending): neither.
            struct Refused: Error {}
            await #expect(throws: (any Error).self) {
                try await log.client.withTransaction(logger: logger) { connection in
                    try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(orders) VALUES (2)"), logger: logger)
                    try await log.append(#"{"order":2}"#, to: "orders", on: connection)
                    throw Refused()
                }
            }
            let rows = try await TestDatabase.run("SELECT id::text FROM \(orders) ORDER BY id")
            #expect(rows == ["1"])
            let entries = try await log.entries(of: "orders", after: EventID(epoch: id.epoch, position: 0), limit: 10)
            #expect(entries == [.event(id, #"{"order":1}"#)])
            // The rolled-back append left no hole: the next event is position 2.
            #expect(try await log.append(#"{"order":3}"#, to: "orders").position == 2)
        }
    }

    @Test func positionsFollowCommitOrderNotTheOrderTransactionsBegan() async throws {
        try await TestDatabase.withLog { log in
            let start = try await log.head(of: "t")
            // T1 begins first and does its work; T2 begins later, appends and commits; T1 appends and
            // commits last: T1's event comes after T2's.
            let t1Began = AsyncStream<Void>.makeStream()
            let t2Done = AsyncStream<Void>.makeStream()
            async let first: EventID = log.client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT 1", logger: logger)
                t1Began.continuation.yield()
                for await _ in t2Done.stream { break }
                return try await log.append("T1", to: "t", on: connection)
            }
            for await _ in t1Began.stream { break }
            let second = try await log.client.withTransaction(logger: logger) { connection in
                try await log.append("T2", to: "t", on: connection)
            }
            t2Done.continuation.yield()
            let firstID = try await first
            #expect(second.position == start.position + 1 && firstID.position == start.position + 2)
        }
    }

    @Test func aSecondAppenderWaitsForTheFirstToEndSoNoReaderSeesAPositionCommitLate() async throws {
        try await TestDatabase.withLog(applicationName: "order-test-\(UInt32.random(in: 0...UInt32.max))") { log in
            let start = try await log.head(of: "t")
            let appended = AsyncStream<Void>.makeStream()
            let release = AsyncStream<Void>.makeStream()
            // T1 appends first and holds its transaction open.
            async let first: EventID = log.client.withTransaction(logger: logger) { connection in
                let id = try await log.append("first", to: "t", on: connection)
                appended.continuation.yield()
                for await _ in release.stream { break }
                return id
            }
            for await _ in appended.stream { break }
            // T2 appends to the same topic: it must wait on T1's lock (seen in pg_stat_activity).
            async let second: EventID = log.client.withTransaction(logger: logger) { connection in
                try await log.append("second", to: "t", on: connection)
            }
            var waiting = false
            for _ in 0..<6_000 where !waiting {
                waiting = try await TestDatabase.run(
                    "SELECT count(*)::text FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%\(log.prefix)_topics%'") == ["1"]
                if !waiting { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(waiting, "the second appender never waited for the first")
            // Meanwhile a reader sees neither.
            #expect(try await log.entries(of: "t", after: start, limit: 10).isEmpty)
            release.continuation.yield()
            let (firstID, secondID) = try await (first, second)
            #expect(firstID.position == start.position + 1 && secondID.position == start.position + 2)
            let entries = try await log.entries(of: "t", after: start, limit: 10)
            #expect(entries == [.event(firstID, "first"), .event(secondID, "second")])
        }
    }

    @Test func appendsToDifferentTopicsDoNotWaitForOneAnother() async throws {
        try await TestDatabase.withLog { log in
            let appended = AsyncStream<Void>.makeStream()
            let release = AsyncStream<Void>.makeStream()
            async let held: EventID = log.client.withTransaction(logger: logger) { connection in
                let id = try await log.append("held", to: "a", on: connection)
                appended.continuation.yield()
                for await _ in release.stream { break }
                return id
            }
            for await _ in appended.stream { break }
            let other = try await log.append("free", to: "b")   // returns while "a" is held
            #expect(other.position == 1)
            release.continuation.yield()
            #expect(try await held.position == 1)
        }
    }

    @Test func aBatchIsAppendedInOrderInOneStatementAndCommitsWithItsTransaction() async throws {
        try await TestDatabase.withLog { log in
            let start = try await log.append("first", to: "t")
            let ids = try await log.client.withTransaction(logger: logger) { connection in
                try await log.append(contentsOf: ["a", "b", "c"], to: "t", on: connection)
            }
            #expect(ids.map(\.position) == [2, 3, 4] && Set(ids.map(\.epoch)) == [start.epoch])
            struct Refused: Error {}
            await #expect(throws: (any Error).self) {
                try await log.client.withTransaction(logger: logger) { connection in
                    try await log.append(contentsOf: ["x", "y"], to: "t", on: connection)
                    throw Refused()
                }
            }
            #expect(try await log.append(contentsOf: [], to: "t").isEmpty)
            let more = try await log.append(contentsOf: ["d"], to: "t")
            #expect(more.map(\.position) == [5])
            let entries = try await log.entries(of: "t", after: .origin, limit: 10)
            #expect(entries.map { if case .event(_, let text) = $0 { text } else { "reset" } } == ["first", "a", "b", "c", "d"])
        }
    }

    @Test func anAppenderAppendsEachValueInOrderWithinItsDemandAndReportsEachFate() async throws {
        try await TestDatabase.withLog { log in
            struct Unencodable: Error {}
            let start = try await log.head(of: "t")
            let requested = NIOLockedValueBox<[Subscribers.Demand]>([])
            let appender = PostgresEventLogAppender<Int, Never>(log: log, topic: "t", maxInFlight: 4) { value in
                if value == 3 { throw Unencodable() }
                return "v\(value)"
            }
            let outcomes = Collected(appender.outcomes.map { outcome -> String in
                switch outcome {
                case .appended(let value, let id): "\(value) at \(id.position - start.position)"
                case .failed(let value, let error): "\(value) failed: \(error is Unencodable ? "unencodable" : "\(error)")"
                }
            })
            let finished = NIOLockedValueBox(false)
            let watch = appender.outcomes.sink(receiveCompletion: { _ in finished.withLockedValue { $0 = true } }, receiveValue: { _ in })
            (1...6).publisher
                .handleEvents(receiveRequest: { demand in requested.withLockedValue { $0.append(demand) } })
                .subscribe(appender)
            await waitUntil { finished.withLockedValue { $0 } }
            #expect(outcomes.values == ["1 at 1", "2 at 2", "3 failed: unencodable", "4 at 3", "5 at 4", "6 at 5"])
            // Demand: 4 at first, then one more as each value's turn is over.
            let demands = requested.withLockedValue { $0 }
            #expect(demands.first == .max(4) && demands.dropFirst().allSatisfy { $0 == .max(1) } && demands.count >= 3)
            let entries = try await log.entries(of: "t", after: start, limit: 10)
            #expect(entries.map { if case .event(_, let text) = $0 { text } else { "reset" } } == ["v1", "v2", "v4", "v5", "v6"])
            watch.cancel()
        }
    }

    @Test func aQueryTheDatabaseNeverAnswersThrowsClosesItsConnectionAndTheNextOneGoesThrough() async throws {
        try await TestDatabase.withLog { made in
            // The log's client reaches PostgreSQL through a proxy that can silence its connections.
            let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
            let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(port: proxy.port))
            let running = Task { await client.run() }
            defer { running.cancel() }
            // Calls that are answered get all the time they need (a new connection under Thread
            // Sanitizer on a busy machine took more than a second); calls on a silenced connection
            // are never answered, so any limit shows they return.
            let log = PostgresEventLog(client: client, prefix: made.prefix, timeout: .seconds(120))
            let impatient = PostgresEventLog(client: client, prefix: made.prefix, timeout: .seconds(1), makesTables: false)   // made: no migration first
            #expect(try await log.append("before", to: "t").position == 1)
            // Each time, the pool's connection stays open and says nothing more: no call waits for
            // an answer that never comes (returning at all is the proof); the silent connection is
            // closed rather than left leased for ever; the pool makes a new connection (carried
            // normally) for the next call.
            proxy.freeze()
            await #expect(throws: PostgresEventLogError.self) { try await impatient.append("unanswered", to: "t") }
            #expect(await waitUntil { proxy.openConnections == 0 })
            #expect(try await log.append("after", to: "t").position == 2)
            proxy.freeze()
            await #expect(throws: PostgresEventLogError.self) { _ = try await impatient.head(of: "t") }
            #expect(await waitUntil { proxy.openConnections == 0 })
            #expect(try await log.head(of: "t").position == 2)
            proxy.freeze()
            await #expect(throws: PostgresEventLogError.self) {
                _ = try await impatient.entries(of: "t", after: .init(epoch: "x", position: 0), limit: 1)
            }
            #expect(await waitUntil { proxy.openConnections == 0 })
            let payloads = try await TestDatabase.run("SELECT payload FROM \(made.prefix)_events ORDER BY position")
            #expect(payloads == ["before", "after"])
            await proxy.close()
        }
    }

    @Test func anEventOfAMebibyteGoesThrough() async throws {
        try await TestDatabase.withLog { log in
            let big = String(repeating: "0123456789abcdef", count: 65_536)   // 1 MiB
            let start = try await log.head(of: "big")
            let id = try await log.append(big, to: "big")
            let entries = try await log.entries(of: "big", after: start, limit: 1)
            #expect(entries == [.event(id, big)])
        }
    }

    @Test func retentionByCountAndAgeAndPerTopic() async throws {
        try await TestDatabase.withLog { log in
            for i in 1...10 { try await log.append("a\(i)", to: "a") }
            for i in 1...10 { try await log.append("b\(i)", to: "b") }
            let a = try await log.head(of: "a")
            let deleted = try await log.trim(.init(default: .init(maximumCount: 3), topics: ["b": .init(maximumCount: 6)]))
            #expect(deleted == 7 + 4)
            // A reader from before what is left is told how many it missed, then gets the rest.
            let fromTwo = try await log.entries(of: "a", after: EventID(epoch: a.epoch, position: 2), limit: 10)
            #expect(fromTwo.first == .reset(epoch: a.epoch, after: 7, missed: 5))
            #expect(fromTwo.dropFirst().map { if case .event(let id, _) = $0 { id.position } else { 0 } } == [UInt64(8), 9, 10])
            // A reader within what is left is not.
            #expect(try await log.entries(of: "a", after: EventID(epoch: a.epoch, position: 8), limit: 10).count == 2)
            // By age: everything is older than nothing.
            #expect(try await log.trim(.init(default: .init(maximumAge: .zero))) == 3 + 6)
            #expect(try await log.entries(of: "a", after: EventID(epoch: a.epoch, position: 9), limit: 10)
                    == [.reset(epoch: a.epoch, after: 10, missed: 1)])
            #expect(try await log.entries(of: "a", after: a, limit: 10).isEmpty)   // nothing new, nothing lost
            #expect(try await log.append("a11", to: "a").position == 11)          // positions go on
        }
    }

    @Test func aRecreatedTopicHasANewEpochAndOldIdsAreReset() async throws {
        try await TestDatabase.withLog { log in
            try await log.append("x", to: "t")
            let old = try await log.head(of: "t")
            try await TestDatabase.run("DELETE FROM \(log.prefix)_topics WHERE topic = 't'")
            let fresh = try await log.append("y", to: "t")
            #expect(fresh.epoch != old.epoch && fresh.position == 1)
            #expect(try await log.entries(of: "t", after: old, limit: 10) == [.reset(epoch: fresh.epoch, after: 1, missed: nil)])
            // Both tables truncated: a new epoch as well.
            try await TestDatabase.run("TRUNCATE \(log.prefix)_topics CASCADE")
            let again = try await log.head(of: "t")
            #expect(again.epoch != fresh.epoch && again.position == 0)
        }
    }

    @Test func migratingTwiceChangesNothing() async throws {
        try await TestDatabase.withLog { log in
            try await log.append("x", to: "t")
            try await log.migrate()
            #expect(try await log.head(of: "t").position == 1)
            #expect(log.migrationSQL.allSatisfy { $0.contains("IF NOT EXISTS") || $0.contains("CREATE OR REPLACE") })
        }
    }

    @Test func migratingTablesOfTheEarlierVersionAddsTagsAndKeys() async throws {
        try await TestDatabase.withLog { made in
            // The tables as the earlier version made them: no tag, no keys, no function.
            let prefix = "old\(UInt32.random(in: 0...UInt32.max))"
            try await TestDatabase.run("""
                CREATE TABLE \(prefix)_topics (topic text PRIMARY KEY,
                    epoch text NOT NULL DEFAULT substr(md5(random()::text || clock_timestamp()::text), 1, 12),
                    head bigint NOT NULL DEFAULT 0)
                """)
            try await TestDatabase.run("""
                CREATE TABLE \(prefix)_events (topic text NOT NULL REFERENCES \(prefix)_topics (topic) ON DELETE CASCADE,
                    position bigint NOT NULL, payload text NOT NULL, written_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (topic, position))
                """)
            try await TestDatabase.run("INSERT INTO \(prefix)_topics (topic, head) VALUES ('t', 1)")
            try await TestDatabase.run("INSERT INTO \(prefix)_events (topic, position, payload) VALUES ('t', 1, 'kept')")
            let log = PostgresEventLog(client: made.client, prefix: prefix)
            try await log.migrate()
            try await log.migrate()
            #expect(try await TestDatabase.run("SELECT (tag IS NOT NULL)::text FROM \(prefix)_events") == ["true"])
            let second = try await log.append("keyed", to: "t", idempotencyKey: "k")
            #expect(second.position == 2)
            #expect(try await log.append("keyed", to: "t", idempotencyKey: "k") == second)
            #expect(try await TestDatabase.run("SELECT payload FROM \(prefix)_events ORDER BY position") == ["kept", "keyed"])
        }
    }
}
