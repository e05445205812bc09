import Foundation
import PostgresNIO
import Sluice
import SluicePostgres
import SluiceTesting
import Testing

/// `pg_notify` from a publisher, heard by a listener, against the real server.
@Suite struct PostgresNotifierTests {
    @Test func sendsEachValueInOrderAndReportsTheOnesItCannot() async throws {
        let channel = TestDatabase.channel("notifier")
        let listener = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration()).subscribe(listener)
        await waitUntil { listener.values.first?.isListening == true }

        let source = PassthroughSubject<String, Never>()
        let requested = Shared<[Subscribers.Demand]>([])
        let notifier = source
            .handleEvents(receiveRequest: { demand in requested.mutate { $0.append(demand) } })
            .notifyPostgres(channel: channel, configuration: try TestDatabase.configuration(), maxInFlight: 4)
        let outcomes = TestSubscriber<PostgresNotifier<String, Never>.Outcome, Never>()
        notifier.outcomes.subscribe(outcomes)
        #expect(requested.value == [.max(4)])

        let tooLarge = String(repeating: "x", count: 8_000)
        for value in ["one", "two", tooLarge, "three"] { source.send(value) }
        source.send(completion: .finished)
        await waitUntil { outcomes.completion != nil }
        await waitUntil { listener.values.count >= 4 }

        #expect(listener.values.dropFirst().map(\.payload) == ["one", "two", "three"])
        let sent = outcomes.values.compactMap { outcome -> String? in
            if case .sent(let payload) = outcome { return payload }
            return nil
        }
        #expect(sent == ["one", "two", "three"])
        let failed = outcomes.values.compactMap { outcome -> PostgresNotifyError? in
            if case .failed(let value, let error) = outcome, value == tooLarge { return error }
            return nil
        }
        #expect(failed.count == 1)
        if case .payloadTooLarge(let bytes)? = failed.first { #expect(bytes == 8_000) } else { Issue.record("\(failed)") }
        // One more value requested for each that went (or failed), never more than 4 outstanding.
        #expect(requested.value.dropFirst().allSatisfy { $0 == .max(1) })
        listener.cancel()
    }

    @Test func encodableValuesGoAsJSONAndEncodingFailuresAreReported() async throws {
        struct Move: Codable, Equatable { var x: Double }
        let channel = TestDatabase.channel("json_out")
        let listener = TestSubscriber<PostgresNotificationEvent<Move>, any Error>()
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration(), as: Move.self)
            .subscribe(listener)
        await waitUntil { listener.values.first?.isListening == true }
        // Made first and watched, then subscribed: the sequence sends as it is subscribed to.
        let encoder = JSONEncoder()
        let notifier = PostgresNotifier<Move, Never>(channel: channel, configuration: try TestDatabase.configuration()) {
            String(decoding: try encoder.encode($0), as: UTF8.self)
        }
        let outcomes = TestSubscriber<PostgresNotifier<Move, Never>.Outcome, Never>()
        notifier.outcomes.subscribe(outcomes)
        [Move(x: 1), Move(x: .nan), Move(x: 2.5)].publisher.subscribe(notifier)
        await waitUntil { listener.values.count >= 3 }
        #expect(listener.values.dropFirst().map(\.payload) == [Move(x: 1), Move(x: 2.5)])
        await waitUntil { outcomes.values.count == 3 }
        let failures = outcomes.values.filter {
            if case .failed(_, .encodingFailed) = $0 { return true }
            return false
        }
        #expect(failures.count == 1)   // NaN is not JSON
        listener.cancel()
    }

    /// A connection that stops answering (half-open): the value in flight fails after `timeout`,
    /// the connection is closed, and the next value goes on a new one. The limit is generous:
    /// connecting (SCRAM authentication) under Thread Sanitizer took more than 5 s.
    @Test func aValueUnansweredInTimeFailsAndTheNextGoesOnANewConnection() async throws {
        let channel = TestDatabase.channel("frozen_out")
        let listener = TestSubscriber<PostgresNotificationEvent<String>, any Error>()
        PostgresNotifications(channel: channel, configuration: try TestDatabase.configuration()).subscribe(listener)
        await waitUntil { listener.values.first?.isListening == true }
        let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
        defer { Task { await proxy.close() } }
        let direct = try TestDatabase.configuration()
        let through = PostgresConnection.Configuration(host: "127.0.0.1", port: proxy.port, username: direct.username,
                                                       password: direct.password, database: direct.database, tls: .disable)
        let source = PassthroughSubject<String, Never>()
        let notifier = PostgresNotifier<String, Never>(channel: channel, configuration: through, timeout: .seconds(30)) { $0 }
        let outcomes = TestSubscriber<PostgresNotifier<String, Never>.Outcome, Never>()
        notifier.outcomes.subscribe(outcomes)
        source.subscribe(notifier)
        source.send("one")
        #expect(await waitUntil { outcomes.values.count == 1 })
        if case .sent("one")? = outcomes.values.first {} else { Issue.record("\(outcomes.values)") }
        proxy.freeze()
        source.send("lost")
        #expect(await waitUntil(timeout: 120) { outcomes.values.count == 2 }, "the frozen query was not given up")
        if case .failed("lost", .queryFailed)? = outcomes.values.last {} else { Issue.record("\(outcomes.values)") }
        #expect(await waitUntil { proxy.openConnections == 0 })   // the frozen one is closed
        source.send("three")
        #expect(await waitUntil { outcomes.values.count == 3 })
        #expect(proxy.openConnections == 1)   // a new one
        #expect(await waitUntil { listener.values.count == 3 })
        #expect(listener.values.dropFirst().map(\.payload) == ["one", "three"])
        notifier.cancel()
        listener.cancel()
    }
}

final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
