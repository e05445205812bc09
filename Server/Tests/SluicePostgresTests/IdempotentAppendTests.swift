import Foundation
import Logging
import PostgresNIO
import Sluice
import SluiceFeed
import SluicePostgres
import Testing

/// Appends with an idempotency key against a real PostgreSQL server: a repeat returns the first
/// append's ids and appends nothing — after its answer was lost, at the same time, in a batch, in
/// the caller's transaction — and what can never be appended is refused before any query.
@Suite struct IdempotentAppendTests {
    let logger = Logger(label: "test")

    private func payloads(_ log: PostgresEventLog, _ topic: String) async throws -> [String] {
        try await TestDatabase.run("SELECT payload FROM \(log.prefix)_events WHERE topic = '\(topic)' ORDER BY position")
    }

    @Test func aRepeatedKeyReturnsTheFirstIdsAndAppendsNothing() async throws {
        try await TestDatabase.withLog { log in
            let first = try await log.append("one", to: "t", idempotencyKey: "order-1")
            #expect(try await log.append("one", to: "t", idempotencyKey: "order-1") == first)
            let batch = try await log.append(contentsOf: ["two", "three"], to: "t", idempotencyKey: "order-2")
            #expect(batch.map(\.position) == [2, 3])
            #expect(try await log.append(contentsOf: ["two", "three"], to: "t", idempotencyKey: "order-2") == batch)
            #expect(try await payloads(log, "t") == ["one", "two", "three"])
            // Without a key, the same payload is another event.
            #expect(try await log.append("one", to: "t").position == 4)
        }
    }

    @Test func theSameKeyWithAnotherPayloadOrTopicIsRefusedAndTheFirstStands() async throws {
        try await TestDatabase.withLog { log in
            let first = try await log.append("one", to: "t", idempotencyKey: "k")
            for (payload, topic) in [("other", "t"), ("one", "u")] {
                do {
                    try await log.append(payload, to: topic, idempotencyKey: "k")
                    Issue.record("the reused key was taken")
                } catch let error as PostgresEventLogError {
                    #expect(error.kind == .idempotencyKeyReused)
                }
            }
            #expect(try await log.append("one", to: "t", idempotencyKey: "k") == first)
            #expect(try await payloads(log, "t") == ["one"])
            #expect(try await payloads(log, "u") == [])
        }
    }

    /// A key trimmed between its claim (which found it) and its answer (which no longer does) is
    /// claimed again: its repeat is appended as a first append would be, the key taken anew.
    @Test func aKeyTrimmedBetweenItsClaimAndItsAnswerIsClaimedAgain() async throws {
        try await TestDatabase.withLog { log in
            let first = try await log.append("one", to: "t", idempotencyKey: "k")
            // Trimming at the worst moment: right after the claim's INSERT, once.
            for sql in ["CREATE TABLE \(log.prefix)_trim_once (key text)",
                        "INSERT INTO \(log.prefix)_trim_once VALUES ('k')",
                        """
                        CREATE FUNCTION \(log.prefix)_trim() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                            DELETE FROM \(log.prefix)_keys WHERE key IN (SELECT key FROM \(log.prefix)_trim_once);
                            DELETE FROM \(log.prefix)_trim_once;
                            RETURN NULL;
                        END $$
                        """,
                        """
                        CREATE TRIGGER trim_once AFTER INSERT ON \(log.prefix)_keys
                        FOR EACH STATEMENT EXECUTE FUNCTION \(log.prefix)_trim()
                        """] {
                _ = try await TestDatabase.run(sql)
            }
            let again = try await log.append("one", to: "t", idempotencyKey: "k")
            #expect(again.position == first.position + 1)
            #expect(try await payloads(log, "t") == ["one", "one"])
            #expect(try await TestDatabase.run("SELECT last::text FROM \(log.prefix)_keys WHERE key = 'k'") == ["2"])
            #expect(try await log.append("one", to: "t", idempotencyKey: "k") == again)   // the key's new first
        }
    }

    @Test func concurrentRepeatsOnSeveralConnectionsAppendOnce() async throws {
        try await TestDatabase.withLog { log in
            let ids = try await withThrowingTaskGroup(of: EventID.self) { group in
                for _ in 0..<16 { group.addTask { try await log.append("once", to: "t", idempotencyKey: "same") } }
                return try await group.reduce(into: [EventID]()) { $0.append($1) }
            }
            #expect(ids.count == 16 && Set(ids).count == 1)
            #expect(try await payloads(log, "t") == ["once"])
        }
    }

    @Test func aKeyInTheCallersTransactionIsTakenOnlyIfItCommits() async throws {
        try await TestDatabase.withLog { log in
            struct Refused: Error {}
            await #expect(throws: (any Error).self) {
                try await log.client.withTransaction(logger: logger) { connection in
                    try await log.append("rolled back", to: "t", idempotencyKey: "k", on: connection)
                    throw Refused()
                }
            }
            let committed = try await log.client.withTransaction(logger: logger) { connection in
                try await log.append("committed", to: "t", idempotencyKey: "k", on: connection)
            }
            #expect(committed.position == 1)
            #expect(try await log.append("committed", to: "t", idempotencyKey: "k") == committed)
            #expect(try await payloads(log, "t") == ["committed"])
        }
    }

    @Test func anAppendWhoseAnswerWasLostIsOutcomeUnknownAndItsRetryWithTheKeyIsOneEvent() async throws {
        try await TestDatabase.withLog { made in
            let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
            let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(port: proxy.port))
            let running = Task { await client.run() }
            defer { running.cancel() }
            let log = PostgresEventLog(client: client, prefix: made.prefix, timeout: .seconds(120))
            let impatient = PostgresEventLog(client: client, prefix: made.prefix, timeout: .seconds(2), makesTables: false)   // made: no migration first
            #expect(try await log.append("before", to: "t").position == 1)
            // The statement reaches the server and commits; its answer never comes back.
            proxy.freezeAnswers()
            do {
                try await impatient.append("purchase", to: "t", idempotencyKey: "purchase-7")
                Issue.record("an append without an answer returned")
            } catch let error as PostgresEventLogError {
                #expect(error.kind == .outcomeUnknown)
            }
            #expect(await waitUntilAsync { try await payloads(made, "t") == ["before", "purchase"] })
            // The retry, on a new connection, gets the first append's id and appends nothing.
            #expect(try await log.append("purchase", to: "t", idempotencyKey: "purchase-7").position == 2)
            #expect(try await payloads(made, "t") == ["before", "purchase"])
            await proxy.close()
        }
    }

    @Test func keysOlderThanTheWindowAreTrimmedAndFreeAgain() async throws {
        try await TestDatabase.withLog { log in
            #expect(try await log.append("first", to: "t", idempotencyKey: "k").position == 1)
            try await log.trim(.init(default: .init(), idempotencyWindow: .seconds(600)))
            #expect(try await log.append("first", to: "t", idempotencyKey: "k").position == 1)   // kept
            try await log.trim(.init(default: .init(), idempotencyWindow: .zero))
            #expect(try await log.append("first", to: "t", idempotencyKey: "k").position == 2)   // gone: a new event
        }
    }

    @Test func whatCanNeverBeAppendedIsRefusedBeforeAnyQuery() async throws {
        try await TestDatabase.withLog { log in
            let refusals: [(String, String, String?)] = [
                ("nul \u{0} inside", "t", nil),
                ("fine", "", nil),
                ("fine", String(repeating: "x", count: PostgresEventLog.maximumTopicLength + 1), nil),
                ("fine", "with space", nil),
                ("fine", "bell\u{7}", nil),
                ("fine", "é", nil),
                ("fine", "t", ""),
                ("fine", "t", "line\nbreak"),
                ("fine", "t", String(repeating: "k", count: 256)),
            ]
            for (payload, topic, key) in refusals {
                do {
                    try await log.append(payload, to: topic, idempotencyKey: key)
                    Issue.record("appended \(payload.debugDescription) to \(topic.debugDescription) with key \(String(describing: key))")
                } catch let error as PostgresEventLogError {
                    #expect(error.kind == .invalid)
                }
            }
            await #expect(throws: PostgresEventLogError.self) { _ = try await log.head(of: "no way") }
            #expect(try await TestDatabase.run("SELECT count(*)::text FROM \(log.prefix)_events") == ["0"])
            // The longest name and every character the rule allows are taken.
            let longest = String(repeating: "y", count: PostgresEventLog.maximumTopicLength)
            #expect(try await log.append("fine", to: longest).position == 1)
            #expect(try await log.append("fine", to: "Az09_-.:@").position == 1)
        }
    }

    @Test func aDatabaseThatCannotBeReachedIsUnavailableNotUnknown() async throws {
        let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(port: try TestDatabase.freePort()))
        let running = Task { await client.run() }
        defer { running.cancel() }
        let log = PostgresEventLog(client: client, prefix: "unreachable", timeout: .seconds(2))
        do {
            try await log.append("lost", to: "t", idempotencyKey: "k")
            Issue.record("appended without a database")
        } catch let error as PostgresEventLogError {
            #expect(error.kind == .unavailable)
        }
    }
}
