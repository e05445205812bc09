import Foundation
import Logging
import MetricsTestKit
import NIOConcurrencyHelpers
import PostgresNIO
import Sluice
import SluiceFeed
import SluicePostgres
import Testing

/// The listener against a real PostgreSQL server: one connection for every topic, catch-up from the
/// table after its connection is killed, a half-open connection noticed by the probe, a gap only
/// where retention passed it.
@Suite(.serialized) struct PostgresEventLogListenerTests {
    private func positions(_ entries: [LogEntry<String>]) -> [UInt64] {
        entries.compactMap { if case .event(let id, _) = $0 { id.position } else { nil } }
    }

    private func running(_ listener: PostgresEventLogListener) -> Task<Void, any Error> {
        Task { try await listener.run() }
    }

    @Test func oneConnectionListensForEveryTopicAndTopicsComeAndGo() async throws {
        let name = "listener-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let listening = try TestDatabase.configuration(applicationName: name)
            let listener = PostgresEventLogListener(log: log, connection: .configuration(listening),
                                                    options: .init(probeInterval: .seconds(600)))
            let run = running(listener)
            defer { run.cancel() }
            let a = Collected(listener.entries(of: "a", after: try await log.head(of: "a")))
            let b = Collected(listener.entries(of: "b", after: try await log.head(of: "b")))
            #expect(await waitUntilAsync { try await TestDatabase.run(
                "SELECT query FROM pg_stat_activity WHERE application_name = '\(name)'").count == 1 })
            for i in 1...3 {
                try await log.append("a\(i)", to: "a")
                try await log.append("b\(i)", to: "b")
            }
            await waitUntil { a.values.count == 3 && b.values.count == 3 }
            #expect(positions(a.values) == [1, 2, 3] && positions(b.values) == [1, 2, 3])
            #expect(a.values.allSatisfy { if case .event(_, let text) = $0 { text.hasPrefix("a") } else { false } })
            // Both LISTENs on the one connection of the listener.
            let log1 = try TestDatabase.log()
            #expect(log1.contains("LISTEN \"\(PostgresEventLog.channel(of: "a"))\""))
            #expect(log1.contains("LISTEN \"\(PostgresEventLog.channel(of: "b"))\""))
            #expect(try await TestDatabase.run("SELECT count(*)::text FROM pg_stat_activity WHERE application_name = '\(name)'") == ["1"])
            // The last reader of "a" leaves: UNLISTEN; a topic added later is heard too.
            a.cancel()
            #expect(await waitUntilAsync { try TestDatabase.log().contains("UNLISTEN \"\(PostgresEventLog.channel(of: "a"))\"") })
            let c = Collected(listener.entries(of: "c", after: try await log.head(of: "c")))
            try await log.append("c1", to: "c")
            await waitUntil { c.values.count == 1 }
            #expect(positions(c.values) == [1])
            b.cancel()
            c.cancel()
        }
    }

    @Test func catchesUpFromTheTableAfterItsConnectionIsKilled() async throws {
        let name = "listener-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let logs = RecordingLogHandler.Store()
            let metrics = TestMetrics()
            let listener = PostgresEventLogListener(
                log: log, connection: .configuration(try TestDatabase.configuration(applicationName: name)),
                options: .init(probeInterval: .seconds(600), initialDelay: .milliseconds(200)),
                logger: RecordingLogHandler.logger(logs), metrics: metrics)
            let states = Collected(listener.statePublisher)
            let run = running(listener)
            defer { run.cancel() }
            let entries = Collected(listener.entries(of: "t", after: try await log.head(of: "t")))
            await waitUntil { listener.state.isListening }
            for i in 1...5 { try await log.append("e\(i)", to: "t") }
            await waitUntil { entries.values.count == 5 }
            for round in 1...3 {
                // The listener is connected (again): kill its connection, append while nobody listens.
                #expect(await waitUntilAsync { try await TestDatabase.run(
                    "SELECT pid::text FROM pg_stat_activity WHERE application_name = '\(name)'").count == 1 })
                #expect(try await TestDatabase.terminate(applicationName: name) == 1)
                for i in 1...5 { try await log.append("more\(i)", to: "t") }
                await waitUntil { entries.values.count == 5 + 5 * round }
            }
            #expect(positions(entries.values) == Array(1...20))   // in order, none twice, no reset
            #expect(states.values.contains { if case .reconnecting = $0 { true } else { false } })
            await waitUntil { listener.state.isListening }
            #expect(listener.state.isListening)
            // Each lost connection logged as a warning, and counted; connected again.
            let lost = logs.records(containing: "connection lost or refused, reconnecting")
            #expect(lost.count >= 3 && lost.allSatisfy { $0.level == .warning })   // one per failed attempt
            #expect(try metrics.expectCounter("sluice_log_listener_reconnects_total").totalValue == 3)
            #expect(try metrics.expectGauge("sluice_log_listener_connected").lastValue == 1)
        }
    }

    @Test func anEventWhoseWakeUpNeverCameIsReadAtTheNextProbe() async throws {
        try await TestDatabase.withLog { log in
            let listener = PostgresEventLogListener(log: log, options: .init(probeInterval: .milliseconds(200)))
            let run = running(listener)
            defer { run.cancel() }
            let entries = Collected(listener.entries(of: "t", after: try await log.head(of: "t")))
            await waitUntil { listener.state.isListening }
            try await log.append("woken", to: "t")
            #expect(await waitUntil { entries.values.count == 1 })
            // Committed without its NOTIFY: what the reader sees of a wake-up lost on the way.
            let silent = try await TestDatabase.run("""
                WITH t AS (UPDATE \(log.prefix)_topics SET head = head + 1 WHERE topic = 't' RETURNING head)
                INSERT INTO \(log.prefix)_events (topic, position, payload) SELECT 't', head, 'silent' FROM t
                RETURNING position::text
                """)
            #expect(silent == ["2"])
            #expect(await waitUntil { entries.values.count == 2 })
            #expect(positions(entries.values) == [1, 2])
            #expect(entries.values.last == .event(EventID(epoch: try await log.head(of: "t").epoch, position: 2), "silent"))
        }
    }

    @Test func aHalfOpenConnectionIsNoticedByTheProbeAndReplaced() async throws {
        try await TestDatabase.withLog { log in
            let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
            var through = try TestDatabase.configuration()
            through = PostgresConnection.Configuration(host: "127.0.0.1", port: proxy.port, username: through.username,
                                                       password: through.password, database: through.database, tls: .disable)
            let listener = PostgresEventLogListener(
                log: log, connection: .configuration(through),
                options: .init(probeInterval: .milliseconds(500), probeTimeout: .seconds(1), initialDelay: .milliseconds(100)))
            let states = Collected(listener.statePublisher)
            let run = running(listener)
            defer { run.cancel() }
            let entries = Collected(listener.entries(of: "t", after: try await log.head(of: "t")))
            await waitUntil { listener.state.isListening }
            try await log.append("before", to: "t")
            await waitUntil { entries.values.count == 1 }
            proxy.freeze()   // the listener's connection is now half-open: open, and silent
            // The probe finds it dead (a read already under way could otherwise bring the next
            // event without any reconnect: append only once the listener has given the connection up).
            let gaveUp = await waitUntil {
                states.values.contains { state in
                    if case .reconnecting = state { return true }
                    return false
                }
            }
            #expect(gaveUp)
            try await log.append("during", to: "t")
            // The listener connects again (through the proxy, anew) and reads.
            await waitUntil { entries.values.count == 2 }
            #expect(positions(entries.values) == [1, 2])
            await waitUntil { listener.state.isListening }
            #expect(listener.state.isListening)
            await proxy.close()
        }
    }

    /// A connection that died under a probe's query can leave the query neither answered nor failed
    /// (PostgresNIO 1.33, when PostgreSQL's restart or `pg_terminate_backend` closes it): the
    /// listener must not wait for it, or it would never listen again nor stop. Here the answer is
    /// held back by a proxy, the probe's limit is far away, and the listener is stopped.
    @Test func aListenerStopsAtOnceWhileItsProbeWaitsForAnAnswerThatNeverComes() async throws {
        let name = "probe-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
            let direct = try TestDatabase.configuration()
            var through = PostgresConnection.Configuration(host: "127.0.0.1", port: proxy.port, username: direct.username,
                                                           password: direct.password, database: direct.database, tls: .disable)
            through.options.additionalStartupParameters = [("application_name", name)]
            let listener = PostgresEventLogListener(
                log: log, connection: .configuration(through),
                options: .init(probeInterval: .milliseconds(100), probeTimeout: .seconds(600)))
            let run = running(listener)
            let stopped = NIOLockedValueBox(false)
            let watcher = Task {
                _ = await run.result
                stopped.withLockedValue { $0 = true }
            }
            let entries = Collected(listener.entries(of: "t", after: try await log.head(of: "t")))
            #expect(await waitUntil { listener.state.isListening })
            // The reader's LISTEN is done once a probe follows it (they share the connection).
            let probed = """
                SELECT query_start::text FROM pg_stat_activity WHERE application_name = '\(name)'
                AND query LIKE 'SELECT topic, epoch, head%'
                """
            #expect(await waitUntilAsync { try await TestDatabase.run(probed).count == 1 })
            proxy.freezeAnswers()
            // A probe whose answer will never reach the listener: one sent after the freeze, or one
            // in flight when the freeze took its answer (its query began before it). Either way the
            // last probe the database saw stays the last one, although one is due every 100 ms: the
            // same start, looked at a second apart.
            var lastStart: String?
            let probing = await waitUntilAsync {
                try await Task.sleep(for: .seconds(1))
                let start = try await TestDatabase.run(probed).first
                defer { lastStart = start }
                return start != nil && start == lastStart
            }
            #expect(probing)
            run.cancel()
            #expect(await waitUntil(timeout: 30) { stopped.withLockedValue { $0 } }, "the listener is still waiting for its probe")
            entries.cancel()
            await proxy.close()
            await watcher.value
        }
    }

    @Test func aGapIsReportedOnlyWhereRetentionPassedIt() async throws {
        try await TestDatabase.withLog { log in
            for i in 1...10 { try await log.append("e\(i)", to: "t") }
            let head = try await log.head(of: "t")
            try await log.trim(.init(default: .init(maximumCount: 4)))
            let listener = PostgresEventLogListener(log: log, options: .init(probeInterval: .seconds(600)))
            let run = running(listener)
            defer { run.cancel() }
            let behind = Collected(listener.entries(of: "t", after: EventID(epoch: head.epoch, position: 2)))
            await waitUntil { behind.values.count == 5 }
            #expect(behind.values.first == .reset(epoch: head.epoch, after: 6, missed: 4))
            #expect(positions(behind.values) == [7, 8, 9, 10])
            behind.cancel()
            let within = Collected(listener.entries(of: "t", after: EventID(epoch: head.epoch, position: 8)))
            await waitUntil { within.values.count == 2 }
            try await log.append("e11", to: "t")
            await waitUntil { within.values.count == 3 }
            #expect(within.values.count == 3 && positions(within.values) == [9, 10, 11])   // no reset
        }
    }
}

/// Waits until `condition` holds (errors count as not yet), polling; gives up after `timeout` seconds.
func waitUntilAsync(timeout: Double = 60, _ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return false
}
