import Foundation
import Logging
import PostgresNIO
import Sluice
import SluiceFeed
import SluicePostgres
import SluiceTesting
import Testing

/// Feeds over the log on two "instances" in one process (each its own client, listener and feeds,
/// sharing the real database): the same ids on both, a client moved between them gets exactly what
/// it missed, from memory or from the table; a mebibyte event; idle feeds released.
@Suite struct PostgresTopicFeedsTests {
    typealias Client = TestSubscriber<FeedMessage<String>, FeedClientFailure>

    /// One instance of a fleet: a client of its own, a listener, topic feeds.
    struct Instance {
        let log: PostgresEventLog
        let listener: PostgresEventLogListener
        let feeds: PostgresTopicFeeds<String>
        let tasks: [Task<Void, Never>]

        init(prefix: String, replay: Int) throws {
            let client = PostgresClient(configuration: try TestDatabase.clientConfiguration())
            log = PostgresEventLog(client: client, prefix: prefix)
            listener = PostgresEventLogListener(log: log, options: .init(probeInterval: .seconds(600)))
            feeds = PostgresTopicFeeds(listener: listener, options: .init(replay: replay, policy: .dropOldest(buffer: 100_000)))
            let listener = listener
            tasks = [Task { await client.run() }, Task { try? await listener.run() }]
        }

        func stop() { tasks.forEach { $0.cancel() } }
    }

    private func positions(_ messages: [FeedMessage<String>]) -> [UInt64] {
        messages.compactMap { if case .event(let id, _) = $0 { id.position } else { nil } }
    }

    @Test func aClientMovedToAnotherInstanceGetsExactlyWhatItMissed() async throws {
        try await TestDatabase.withLog { log in
            let a = try Instance(prefix: log.prefix, replay: 1_024)
            let b = try Instance(prefix: log.prefix, replay: 8)
            defer { a.stop(); b.stop() }
            let onA = try await a.feeds.feed(of: "orders")
            let onB = try await b.feeds.feed(of: "orders")
            await waitUntil { a.listener.state.isListening && b.listener.state.isListening }
            let first = Client()
            onA.client().subscribe(first)
            let watcher = Client()
            onB.client().subscribe(watcher)
            for i in 1...20 { try await log.append("o\(i)", to: "orders") }
            await waitUntil { first.values.count == 20 && watcher.values.count == 20 }
            #expect(positions(first.values) == Array(1...20))
            #expect(first.values == watcher.values)   // the same events under the same ids on both instances
            let last = try #require(first.values.last.flatMap { if case .event(let id, _) = $0 { id } else { nil } })
            first.cancel()
            for i in 21...50 { try await log.append("o\(i)", to: "orders") }
            await waitUntil { watcher.values.count == 50 }
            // It comes back on B, whose memory holds only the last 8: the rest is read from the table.
            let moved = Client()
            onB.client(after: last).subscribe(moved)
            await waitUntil { moved.values.count == 30 }
            try await log.append("o51", to: "orders")
            await waitUntil { moved.values.count == 31 }
            #expect(positions(moved.values) == Array(21...51))
            #expect(moved.values.allSatisfy { if case .event = $0 { true } else { false } })
            #expect(Array(moved.values.prefix(30)) == Array(watcher.values[20..<50]))
            // An id of another epoch is reset, never replayed.
            let foreign = Client()
            onA.client(after: EventID(epoch: "other", position: 3)).subscribe(foreign)
            await waitUntil { !foreign.values.isEmpty }
            #expect(foreign.values.first == .reset(missed: nil))
        }
    }

    /// An instance whose listener cannot reach the database: past `partitionLimit` its clients'
    /// streams end with a shutdown message (they resume on another instance), new feeds are refused
    /// as unavailable, and once it listens again it serves as before.
    @Test func anInstanceCutOffFromTheDatabaseEndsItsStreamsAndServesAgainOnceItListens() async throws {
        try await TestDatabase.withLog { log in
            let target = Int(try TestDatabase.setting("SLUICE_PG_PORT"))!
            let proxy = try await FreezingProxy(target: target)
            let direct = try TestDatabase.configuration()
            let through = PostgresConnection.Configuration(host: "127.0.0.1", port: proxy.port, username: direct.username,
                                                           password: direct.password, database: direct.database, tls: .disable)
            let listener = PostgresEventLogListener(
                log: log, connection: .configuration(through),
                options: .init(probeInterval: .milliseconds(200), probeTimeout: .seconds(1), initialDelay: .milliseconds(50),
                               maximumDelay: .milliseconds(200)))
            let feeds = PostgresTopicFeeds(listener: listener, partitionLimit: .seconds(1))
            let tasks = [Task { try? await listener.run() }, Task { try? await feeds.run() }]
            defer { tasks.forEach { $0.cancel() } }
            let feed = try await feeds.feed(of: "t")
            #expect(await waitUntil { listener.state.isListening })
            let client = Client()
            feed.client().subscribe(client)
            try await log.append("e1", to: "t")
            #expect(await waitUntil { client.values.count == 1 })

            await proxy.close()   // the listener's connection is gone, and connecting again is refused
            #expect(await waitUntil { client.completion != nil })
            #expect(client.completion == .finished)
            let last = try #require(client.values.last)
            guard case .shutdown(let reason) = last else { Issue.record("the stream ended with \(last)"); return }
            #expect(reason.contains("unreachable"))
            await #expect { _ = try await feeds.feed(of: "t") } throws: { error in
                (error as? PostgresEventLogError)?.kind == .unavailable
            }

            // Reachable again, on the same port: a connection the old proxy accepted as it closed
            // may hold the port a moment longer (EADDRINUSE), so binding is tried until it works.
            var reopened: FreezingProxy?
            #expect(await waitUntilAsync {
                reopened = try await FreezingProxy(target: target, port: proxy.port)
                return true
            })
            let back = try #require(reopened)
            #expect(await waitUntil { listener.state.isListening })
            let resumed = Client()
            try await feeds.feed(of: "t").client(after: EventID(epoch: try await log.head(of: "t").epoch, position: 1)).subscribe(resumed)
            try await log.append("e2", to: "t")
            #expect(await waitUntil { resumed.values.count == 1 })
            #expect(positions(resumed.values) == [2])
            await back.close()
        }
    }

    @Test func aMebibyteEventReachesTheClientsOfEveryInstance() async throws {
        try await TestDatabase.withLog { log in
            let a = try Instance(prefix: log.prefix, replay: 4)
            defer { a.stop() }
            let feed = try await a.feeds.feed(of: "big")
            await waitUntil { a.listener.state.isListening }
            let client = Client()
            feed.client().subscribe(client)
            let big = String(repeating: "x", count: 1 << 20)
            let id = try await log.append(big, to: "big")
            await waitUntil { client.values.count == 1 }
            #expect(client.values == [.event(id: id, big)])
        }
    }

    @Test func aFeedWithoutClientsIsReleasedAfterItsGrace() async throws {
        try await TestDatabase.withLog { log in
            let listener = PostgresEventLogListener(log: log, options: .init(probeInterval: .seconds(600)))
            let run = Task { try? await listener.run() }
            defer { run.cancel() }
            let feeds = PostgresTopicFeeds(listener: listener, releaseAfter: .seconds(30))
            let feed = try await feeds.feed(of: "t")
            let client = Client()
            feed.client().subscribe(client)
            #expect(feeds.releaseIdle(now: .now + .seconds(60)).isEmpty)   // a client: kept
            client.cancel()
            #expect(feeds.releaseIdle(now: .now).isEmpty)                  // within its grace
            #expect(feeds.releaseIdle(now: .now + .seconds(31)) == ["t"])
            #expect(feed.isFinished && feeds.topics.isEmpty)
            let again = try await feeds.feed(of: "t")
            #expect(again !== feed)
        }
    }
}
