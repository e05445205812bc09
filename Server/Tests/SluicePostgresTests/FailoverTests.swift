import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO
import ServerTestSupport
import SluiceFeed
import SluicePostgres
import SluiceTesting
import Testing

/// A real failover that loses commits: a streaming standby of the test's PostgreSQL (made with
/// `pg_basebackup`) stops receiving while the primary commits more; the primary stops; the standby
/// is started on the primary's port and promoted. The instance (its listener and pool reconnect on
/// their own) must tell its connected clients `reset` where the histories part, then deliver the
/// new primary's events; clients resuming with ids of the lost history are reset there, one from
/// before the parting goes on without a reset. The primary is started again afterwards.
///
/// It stops the database, so it is one of the fleet tests, which `Server/test` runs alone.
extension FleetTests {
    @Test(.timeLimit(.minutes(5)))
    func aLaggingStandbyPromotedInThePrimarysPlaceTellsEveryClientWhatWasLost() async throws {
        let server = try PostgresServer()
        do {
            try await failOver(server)
        } catch {
            await server.cleanUp()
            throw error
        }
        await server.cleanUp()
    }

    private func failOver(_ server: PostgresServer) async throws {
        let name = "failover-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let instance = try HistoryMovedTests.Instance(prefix: log.prefix, name: name)
            defer { instance.stop() }
            let feed = try await instance.feeds.feed(of: "orders")
            #expect(await waitUntil { instance.listener.state.isListening })
            let connected = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
            feed.client().subscribe(connected)
            for i in 1...10 { try await log.append("old\(i)", to: "orders") }

            // The standby: a copy of the primary, streaming from it, until it has 15 events.
            try await server.makeStandby()
            for i in 11...15 { try await log.append("old\(i)", to: "orders") }
            #expect(await waitUntilAsync { try await server.standbyHead(of: "orders", prefix: log.prefix) == 15 },
                    "the standby did not receive the first 15 events")
            try await server.stopStandby()   // it receives nothing more
            for i in 16...20 { try await log.append("old\(i)", to: "orders") }
            #expect(await waitUntil { connected.values.count == 20 })
            let oldEpoch = try #require(connected.values.compactMap { if case .event(let id, _) = $0 { id.epoch } else { nil } }.first)

            // The failover: the primary stops at once, the standby takes its port and is promoted.
            try await server.failOver()
            #expect(await waitUntil { HistoryMovedTests.resets(connected.values) == 1 }, "the connected client was not told")
            let first = try await server.appendWhenReachable(log, "new16", to: "orders")
            #expect(first.position == 16 && first.epoch != oldEpoch)
            for i in 17...18 { try await log.append("new\(i)", to: "orders") }

            // Connected throughout: the 20 old events, a reset, then the new history from 16.
            #expect(await waitUntil { HistoryMovedTests.events(connected.values).count == 23 })
            #expect(HistoryMovedTests.events(connected.values) == (1...20).map { "old\($0)" } + (16...18).map { "new\($0)" })
            #expect(HistoryMovedTests.resets(connected.values) == 1)
            #expect(connected.values.dropFirst(20).first.map { if case .reset = $0 { true } else { false } } == true)
            let newEpoch = first.epoch
            #expect(HistoryMovedTests.ids(connected.values).suffix(3).allSatisfy { $0.epoch == newEpoch })

            // Resuming with an id the new primary never had: reset where the histories part (after
            // 15), then the new history; from before the parting: no reset, the same events renamed.
            let lost = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
            feed.client(after: EventID(epoch: oldEpoch, position: 18)).subscribe(lost)
            let kept = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
            feed.client(after: EventID(epoch: oldEpoch, position: 12)).subscribe(kept)
            #expect(await waitUntil { HistoryMovedTests.events(lost.values).count == 3 && HistoryMovedTests.events(kept.values).count == 6 })
            #expect(HistoryMovedTests.resets(lost.values) == 1 && HistoryMovedTests.events(lost.values) == (16...18).map { "new\($0)" })
            #expect(HistoryMovedTests.resets(kept.values) == 0)
            #expect(HistoryMovedTests.events(kept.values) == (13...15).map { "old\($0)" } + (16...18).map { "new\($0)" })
            #expect(HistoryMovedTests.ids(kept.values).allSatisfy { $0.epoch == newEpoch })
        }
    }
}

/// The test's PostgreSQL server as `Server/postgres-env` made it (its programs, folder, options and
/// `pg_ctl`, run as the `postgres` user), and a standby of it in the folder's `standby`.
final class PostgresServer: Sendable {
    let bin: String
    let data: String
    let options: String
    let port: Int
    let password: String
    let standbyPort: Int
    private let state = NIOLockedValueBox((standbyRunning: false, failedOver: false))

    init() throws {
        bin = try TestDatabase.setting("SLUICE_PG_BIN")
        data = try TestDatabase.setting("SLUICE_PG_DATA")
        options = try TestDatabase.setting("SLUICE_PG_OPTIONS")
        port = Int(try TestDatabase.setting("SLUICE_PG_PORT"))!
        password = try TestDatabase.setting("SLUICE_PG_PASSWORD")
        standbyPort = try freeLoopbackPort()
    }

    private var standby: String { "\(data)/standby" }

    /// Runs `arguments` as the `postgres` user; its output goes to `<data>/failover.log`.
    private func asOwner(_ arguments: [String]) async throws {
        let status = await exitStatus(of: try spawn(["runuser", "-u", "postgres", "--"] + arguments, output: "\(data)/failover.log"))
        if status != 0 {
            let log = (try? String(contentsOfFile: "\(data)/failover.log", encoding: .utf8)) ?? ""
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(status):\n\(log.suffix(2_000))")
        }
    }

    /// A base backup of the primary, started as a standby streaming from it on `standbyPort`.
    func makeStandby() async throws {
        try? FileManager.default.removeItem(atPath: standby)
        try await asOwner(["env", "PGPASSWORD=\(password)", "\(bin)/pg_basebackup", "-h", "127.0.0.1", "-p", "\(port)",
                           "-U", "sluice", "-D", standby, "-R", "-X", "stream", "-c", "fast"])
        try await asOwner(["\(bin)/pg_ctl", "-D", standby, "-l", "\(data)/standby.log", "-w", "-o",
                           "-c listen_addresses=127.0.0.1 -p \(standbyPort) -k \(data) -c max_connections=200", "start"])
        state.withLockedValue { $0.standbyRunning = true }
    }

    /// The head of `topic` in the standby's copy (`nil` before its row is there).
    func standbyHead(of topic: String, prefix: String) async throws -> Int? {
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: standbyPort, username: "sluice",
                                                             password: password, database: "sluice", tls: .disable)
        let logger = Logger(label: "standby")
        let connection = try await PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(),
                                                              configuration: configuration, id: 1, logger: logger).get()
        defer { Task { try? await connection.close() } }
        for try await head in try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT head FROM \(prefix)_topics WHERE topic = '\(topic)'"), logger: logger).decode(Int64.self) {
            return Int(head)
        }
        return nil
    }

    func stopStandby() async throws {
        guard state.withLockedValue({ $0.standbyRunning }) else { return }
        try await asOwner(["\(bin)/pg_ctl", "-D", standby, "-m", "fast", "-w", "stop"])
        state.withLockedValue { $0.standbyRunning = false }
    }

    /// The primary stops at once; the standby starts on its port, with nothing to stream from, and
    /// is promoted.
    func failOver() async throws {
        try await asOwner(["\(bin)/pg_ctl", "-D", "\(data)/cluster", "-m", "immediate", "-w", "stop"])
        state.withLockedValue { $0.failedOver = true }
        try await asOwner(["\(bin)/pg_ctl", "-D", standby, "-l", "\(data)/standby.log", "-w", "-o",
                           "\(options) -c primary_conninfo=''", "start"])
        state.withLockedValue { $0.standbyRunning = true }
        try await asOwner(["\(bin)/pg_ctl", "-D", standby, "-w", "promote"])
    }

    /// The standby stopped, and the primary running on its port again if it was failed over from
    /// (for the tests after this one).
    func cleanUp() async {
        try? await stopStandby()
        guard state.withLockedValue({ $0.failedOver }) else { return }
        do {
            try await asOwner(["\(bin)/pg_ctl", "-D", "\(data)/cluster", "-l", "\(data)/server.log", "-w", "-o", options, "start"])
            state.withLockedValue { $0.failedOver = false }
        } catch {
            Issue.record("the primary did not start again: \(error)")
        }
    }

    /// Appends `payload` with a key once the new primary takes appends (the pool may still hold
    /// connections to the old one, which fail first; a retry with the key appends once).
    func appendWhenReachable(_ log: PostgresEventLog, _ payload: String, to topic: String) async throws -> EventID {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try await log.append(payload, to: topic, idempotencyKey: "failover-\(payload)")
            } catch let error as PostgresEventLogError where error.kind != .invalid && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
