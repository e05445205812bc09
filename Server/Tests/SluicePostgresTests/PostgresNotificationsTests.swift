import Foundation
import PostgresNIO
import Sluice
import SluicePostgres
import SluiceTesting
import Testing

/// LISTEN/NOTIFY against the real PostgreSQL server `Server/test` starts.
@Suite struct PostgresNotificationsTests {
    @Test func tenThousandNotificationsArriveInOrderWithNoneLost() async throws {
        let channel = TestDatabase.channel("order")
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration()).subscribe(subscriber)
        await waitUntil { subscriber.values.first?.isListening == true }
        try await TestDatabase.run("SELECT pg_notify('\(channel)', i::text) FROM generate_series(1, 10000) AS i")
        await waitUntil { subscriber.values.count >= 10_001 || subscriber.completion != nil }
        let values = subscriber.values
        #expect(values.first?.isListening == true)
        #expect(values.dropFirst().map(\.payload) == (1...10_000).map { "\($0)" })
        subscriber.cancel()
    }

    @Test func decodesJSONAndReportsWhatItCannotDecode() async throws {
        struct Price: Codable, Equatable { var symbol: String; var cents: Int }
        let channel = TestDatabase.channel("json")
        let subscriber = TestSubscriber<PostgresNotificationEvent<Price>, any Error>()
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration(), as: Price.self)
            .subscribe(subscriber)
        await waitUntil { subscriber.values.first?.isListening == true }
        for payload in [#"{"symbol":"ACME","cents":1234}"#, "not json", #"{"symbol":"INIT","cents":5}"#] {
            try await TestDatabase.run("SELECT pg_notify('\(channel)', '\(payload)')")
        }
        await waitUntil { subscriber.values.count >= 4 }
        let values = subscriber.values
        #expect(values.count == 4)
        #expect(values[1].payload == Price(symbol: "ACME", cents: 1234))
        guard case .undecodable(let text, _) = values[2] else { Issue.record("not undecodable: \(values[2])"); return }
        #expect(text == "not json")
        #expect(values[3].payload == Price(symbol: "INIT", cents: 5))
        subscriber.cancel()
    }

    /// Whatever the timing of arrivals against the subscriber's requests: the subscriber never gets
    /// more than it asked for, and every notification either arrives, in order, or is counted in a
    /// gap — none is lost silently.
    @Test func honoursDemandAndCountsWhatTheBufferDrops() async throws {
        let channel = TestDatabase.channel("demand")
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>(initialDemand: .max(1))
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration(),
                              options: .init(bufferSize: 50)).subscribe(subscriber)
        await waitUntil { subscriber.values.count == 1 }
        #expect(subscriber.values.first?.isListening == true)
        try await TestDatabase.run("SELECT pg_notify('\(channel)', i::text) FROM generate_series(1, 500) AS i")
        try await Task.sleep(for: .milliseconds(50))
        #expect(subscriber.values.count == 1)   // no demand, nothing delivered
        subscriber.request(.max(3))
        await waitUntil { subscriber.values.count == 4 }
        #expect(subscriber.values.count == 4)
        subscriber.request(.unlimited)
        await waitUntil { subscriber.values.last?.payload == "500" }
        var expected = 1
        for event in subscriber.values.dropFirst() {
            if let dropped = event.droppedCount {
                expected += dropped
            } else {
                #expect(event.payload == "\(expected)")
                expected += 1
            }
        }
        #expect(expected == 501)
        subscriber.cancel()
    }

    @Test func reconnectsReportsTheGapAndListensAgain() async throws {
        let channel = TestDatabase.channel("reconnect")
        let application = "sluice-\(channel)"
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration(applicationName: application),
                              options: .init(reconnect: ReconnectPolicy(initialDelay: .milliseconds(20))))
            .subscribe(subscriber)
        await waitUntil { subscriber.values.first?.isListening == true }
        try await TestDatabase.run("SELECT pg_notify('\(channel)', 'before')")
        await waitUntil { subscriber.values.count == 2 }
        let terminated = try await TestDatabase.run(
            "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE application_name = '\(application)'")
        #expect(terminated == ["true"])
        await waitUntil { subscriber.values.contains { $0.reconnected } || subscriber.completion != nil }
        try await TestDatabase.run("SELECT pg_notify('\(channel)', 'after')")
        await waitUntil { subscriber.values.last?.payload == "after" }
        let values = subscriber.values
        #expect(values.count == 4)
        #expect(values[1].payload == "before")
        #expect(values[2].reconnected, "\(values[2])")
        #expect(values[3].payload == "after")
        #expect(subscriber.completion == nil)
        subscriber.cancel()
    }

    @Test func aWrongPasswordFailsClearlyAndAtOnce() async throws {
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        // Were a refusal retried, the first retry would come after an hour and the subscriber
        // would never complete: its completing at all shows it was not retried.
        let patient = PostgresNotifications<String>.Options(
            reconnect: ReconnectPolicy(initialDelay: .seconds(3_600), maximumAttempts: nil))
        PostgresNotifications(channel: "nobody", configuration: try TestDatabase.configuration(password: "wrong"),
                              options: patient)
            .subscribe(subscriber)
        await waitUntil { subscriber.completion != nil }
        let failure = try #require(subscriber.failure as? PostgresFailure)
        #expect(failure.sqlState == "28P01")
        #expect("\(failure)".contains("password authentication failed"))
        #expect(subscriber.values.isEmpty)
    }

    @Test func anUnknownDatabaseFailsClearly() async throws {
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: "nobody", configuration: try TestDatabase.configuration(database: "no_such_db"))
            .subscribe(subscriber)
        await waitUntil { subscriber.completion != nil }
        let failure = try #require(subscriber.failure as? PostgresFailure)
        #expect(failure.sqlState == "3D000")
        #expect("\(failure)".contains("no_such_db"))
    }

    @Test func anUnreachableServerFailsAfterTheAttemptsAllowed() async throws {
        // A loopback port nothing listens on: bound, then released.
        let port = try TestDatabase.freePort()
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: port, username: "sluice",
                                                             password: "x", database: "sluice", tls: .disable)
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: "nobody", configuration: configuration,
                              options: .init(reconnect: ReconnectPolicy(initialDelay: .milliseconds(1), maximumAttempts: 3)))
            .subscribe(subscriber)
        await waitUntil { subscriber.completion != nil }
        let failure = try #require(subscriber.failure as? PostgresFailure)
        #expect(failure.sqlState == nil)
    }

    @Test func cancelSendsUnlistenAndClosesTheConnection() async throws {
        let channel = TestDatabase.channel("cancel")
        let application = "sluice-\(channel)"
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration(applicationName: application))
            .subscribe(subscriber)
        await waitUntil { subscriber.values.first?.isListening == true }
        #expect(try await TestDatabase.run("SELECT count(*)::text FROM pg_stat_activity WHERE application_name = '\(application)'") == ["1"])
        subscriber.cancel()
        await waitUntil { (try? TestDatabase.log().contains("UNLISTEN \"\(channel)\"")) == true }
        #expect(try TestDatabase.log().contains("UNLISTEN \"\(channel)\""))
        var open = ["1"]
        for _ in 0..<1_000 where open != ["0"] {
            open = try await TestDatabase.run("SELECT count(*)::text FROM pg_stat_activity WHERE application_name = '\(application)'")
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(open == ["0"])
        try await TestDatabase.run("SELECT pg_notify('\(channel)', 'late')")
        try await Task.sleep(for: .milliseconds(20))
        #expect(subscriber.values.count == 1)
    }

    /// A proxy to the test's PostgreSQL that can freeze its connections, and the configuration of a
    /// connection through it.
    private static func freezingProxy() async throws -> (FreezingProxy, PostgresConnection.Configuration) {
        let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
        let direct = try TestDatabase.configuration()
        return (proxy, PostgresConnection.Configuration(host: "127.0.0.1", port: proxy.port, username: direct.username,
                                                        password: direct.password, database: direct.database, tls: .disable))
    }

    /// A connection that stops answering (half-open) while the subscriber cancels: `UNLISTEN` is
    /// given up after the options' `timeout` and the connection closed, not left waiting for ever.
    @Test func cancelClosesAConnectionThatNoLongerAnswersItsUnlisten() async throws {
        let channel = TestDatabase.channel("frozen")
        let (proxy, through) = try await Self.freezingProxy()
        defer { Task { await proxy.close() } }
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: channel, configuration: through, options: .init(timeout: .seconds(30)))
            .subscribe(subscriber)
        await waitUntil { subscriber.values.first?.isListening == true }
        #expect(proxy.openConnections == 1)
        proxy.freeze()
        subscriber.cancel()
        #expect(await waitUntil(timeout: 120) { proxy.openConnections == 0 }, "the listening connection is still open")
    }

    /// A listening connection that goes silent (half-open: no notification would ever arrive on
    /// it again) is noticed by the probe, closed and replaced: a gap says so, and what is sent
    /// afterwards arrives.
    @Test func aSilentListeningConnectionIsNoticedByItsProbeAndReplaced() async throws {
        let channel = TestDatabase.channel("probed")
        let (proxy, through) = try await Self.freezingProxy()
        defer { Task { await proxy.close() } }
        let subscriber = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        // A limit that connecting through SCRAM under Thread Sanitizer keeps well within.
        PostgresNotifications(channel: channel, configuration: through,
                              options: .init(timeout: .seconds(15), probeInterval: .milliseconds(500)))
            .subscribe(subscriber)
        #expect(await waitUntil { subscriber.values.first?.isListening == true })
        try await TestDatabase.run("SELECT pg_notify('\(channel)', 'before')")
        #expect(await waitUntil { subscriber.values.contains { $0.payload == "before" } })
        proxy.freeze()
        try await TestDatabase.run("SELECT pg_notify('\(channel)', 'lost')")   // on the silent connection: never arrives
        #expect(await waitUntil(timeout: 120) { subscriber.values.contains(where: \.reconnected) }, "the silent connection was not noticed")
        try await TestDatabase.run("SELECT pg_notify('\(channel)', 'after')")
        #expect(await waitUntil { subscriber.values.contains { $0.payload == "after" } })
        #expect(subscriber.values.compactMap(\.payload) == ["before", "after"])
        #expect(subscriber.completion == nil)
        subscriber.cancel()
    }

    @Test func keepsTheContract() async throws {
        let configuration = try TestDatabase.configuration()
        try await PublisherContract.verify(settle: .milliseconds(500), timeout: .seconds(10)) {
            PostgresNotifications(channel: "contract", configuration: configuration)
        }
    }
}
