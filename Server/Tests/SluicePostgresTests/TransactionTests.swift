import Logging
import PostgresNIO
import SluiceFeed
@testable import SluicePostgres
import Testing

/// `PostgresEventLog.withTransaction`: the caller's transaction, whose failure says whether it was
/// committed — against a real PostgreSQL, reached directly or through a proxy that freezes.
@Suite struct TransactionTests {
    private let logger = Logger(label: "test")

    private func payloads(_ log: PostgresEventLog, _ topic: String) async throws -> [String] {
        try await TestDatabase.run("SELECT payload FROM \(log.prefix)_events WHERE topic = '\(topic)' ORDER BY position")
    }

    /// `body` with a log (`made`, its tables made) and the same log reached through a proxy that
    /// freezes, with a limit of 30 s (`impatient`): connecting through SCRAM under Thread Sanitizer
    /// took more than 5 s, and a shorter limit passed before the transaction began.
    private func withImpatientLog(_ body: (_ made: PostgresEventLog, _ impatient: PostgresEventLog, _ proxy: FreezingProxy) async throws -> Void) async throws {
        try await TestDatabase.withLog { made in
            let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
            defer { Task { await proxy.close() } }
            let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(port: proxy.port))
            let running = Task { await client.run() }
            defer { running.cancel() }
            try await body(made, PostgresEventLog(client: client, prefix: made.prefix, timeout: .seconds(30), makesTables: false), proxy)
        }
    }

    @Test func theBodysWorkAndItsEventsAreCommittedTogether() async throws {
        try await TestDatabase.withLog { log in
            let (id, count) = try await log.withTransaction { connection in
                let id = try await log.append("first", to: "t", on: connection)
                try await log.append("second", to: "t", on: connection)
                let rows = try await connection.query("SELECT count(*)::int FROM \(unescaped: log.prefix)_events", logger: logger)
                var count = 0
                for try await (value) in rows.decode(Int.self) { count = value }
                return (id, count)
            }
            #expect(id.position == 1 && count == 2)
            #expect(try await payloads(log, "t") == ["first", "second"])
        }
    }

    @Test func theBodysOwnErrorRollsBackAndIsThrownAsItIs() async throws {
        try await TestDatabase.withLog { log in
            struct Declined: Error {}
            await #expect(throws: Declined.self) {
                try await log.withTransaction { connection in
                    try await log.append("rolled back", to: "t", on: connection)
                    throw Declined()
                }
            }
            // A statement PostgreSQL refuses: its error, as PostgresNIO gave it (the app's to answer).
            do {
                try await log.withTransaction { connection in
                    try await log.append("rolled back too", to: "t", on: connection)
                    try await connection.query("SELECT * FROM no_such_table", logger: logger)
                }
                Issue.record("a refused statement committed")
            } catch let error as PSQLError {
                #expect(error.code == .server)
            }
            // An error of the log's inside: as the log told it.
            do {
                try await log.withTransaction { connection in try await log.append("x", to: "no spaces", on: connection) }
                Issue.record("an invalid topic was appended")
            } catch let error as PostgresEventLogError {
                #expect(error.kind == .invalid && error.httpStatus == 400)
            }
            #expect(try await payloads(log, "t") == [])
            #expect(try await log.append("after", to: "t").position == 1)   // no position was used
        }
    }

    @Test func anUnreachableDatabaseIsUnavailableNothingCommitted() async throws {
        let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(port: try freeLoopbackPort()))
        let running = Task { await client.run() }
        defer { running.cancel() }
        let log = PostgresEventLog(client: client, timeout: .seconds(2))
        let ran = Shared(false)
        do {
            try await log.withTransaction { _ in ran.mutate { $0 = true } }
            Issue.record("a transaction without a database committed")
        } catch let error as PostgresEventLogError {
            #expect(error.kind == .unavailable)
            #expect(error.httpStatus == 503)
            #expect(error.httpHeaders.map(\.name) == ["Retry-After", "Sluice-Outcome"])
            #expect(error.httpHeaders.last?.value == "not-stored")
        }
        #expect(ran.value == false)
    }

    @Test func aConnectionFrozenBeforeCommitIsUnavailableAndNeverCommitsLater() async throws {
        try await withImpatientLog { made, impatient, proxy in
            #expect(try await made.append("before", to: "t").position == 1)
            // The body's append is sent into a frozen connection: the limit passes before COMMIT.
            let bodyEnded = Shared(false)
            do {
                try await impatient.withTransaction { connection in
                    proxy.freeze()
                    defer { bodyEnded.mutate { $0 = true } }
                    try await impatient.append("never", to: "u", on: connection)
                }
                Issue.record("a frozen transaction committed")
            } catch let error as PostgresEventLogError {
                #expect(error.kind == .unavailable, "\(error)")
            }
            // The limit closed the connection, which ends the body; its COMMIT was never sent.
            #expect(await waitUntil { bodyEnded.value })
            #expect(await waitUntil { proxy.openConnections == 0 })
            #expect(try await payloads(made, "u") == [])
            #expect(try await impatient.withTransaction { try await impatient.append("next", to: "t", on: $0) }.position == 2)
        }
    }

    @Test func aCommitWhoseAnswerWasLostIsOutcomeUnknown() async throws {
        try await withImpatientLog { made, impatient, proxy in
            // COMMIT reaches the server and commits; its answer never comes back.
            do {
                try await impatient.withTransaction { connection in
                    try await impatient.append("committed", to: "t", on: connection)
                    proxy.freezeAnswers()
                }
                Issue.record("a commit without an answer returned")
            } catch let error as PostgresEventLogError {
                #expect(error.kind == .outcomeUnknown, "\(error)")
                #expect(error.httpStatus == 503 && error.httpHeaders.last?.value == "unknown")
            }
            #expect(try await payloads(made, "t") == ["committed"])
        }
    }
}
