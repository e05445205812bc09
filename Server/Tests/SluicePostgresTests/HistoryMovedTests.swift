import Foundation
import Logging
import PostgresNIO
import Sluice
import SluiceFeed
import SluicePostgres
import SluiceTesting
import Testing

/// History that moved is told, never skipped, against a real PostgreSQL server: a database that
/// lost its last commits (what an asynchronous standby promoted in the primary's place has), with or
/// without their positions reused before anyone looked; an id ahead of the head; and a topic never
/// published, which reading does not make.
@Suite struct HistoryMovedTests {
    typealias Client = TestSubscriber<FeedMessage<String>, FeedClientFailure>
    let logger = Logger(label: "test")

    /// An instance: its own client, a listener on a connection named `name` (so the test can kill
    /// it, as a failover does), topic feeds.
    struct Instance {
        let log: PostgresEventLog
        let listener: PostgresEventLogListener
        let feeds: PostgresTopicFeeds<String>
        let tasks: [Task<Void, Never>]

        init(prefix: String, name: String, maximumFeeds: Int = 10_000) throws {
            let client = PostgresClient(configuration: try TestDatabase.clientConfiguration())
            log = PostgresEventLog(client: client, prefix: prefix)
            listener = PostgresEventLogListener(log: log, connection: .configuration(try TestDatabase.configuration(applicationName: name)),
                                                options: .init(probeInterval: .seconds(600), initialDelay: .milliseconds(100)))
            feeds = PostgresTopicFeeds(listener: listener, options: .init(replay: 1_024, policy: .dropOldest(buffer: 100_000)),
                                       maximumFeeds: maximumFeeds)
            let listener = listener
            tasks = [Task { await client.run() }, Task { try? await listener.run() }]
        }

        func stop() { tasks.forEach { $0.cancel() } }
    }

    static func events(_ messages: [FeedMessage<String>]) -> [String] {
        messages.compactMap { if case .event(_, let text) = $0 { text } else { nil } }
    }

    static func ids(_ messages: [FeedMessage<String>]) -> [EventID] {
        messages.compactMap { if case .event(let id, _) = $0 { id } else { nil } }
    }

    static func resets(_ messages: [FeedMessage<String>]) -> Int {
        messages.filter { if case .reset = $0 { true } else { false } }.count
    }

    /// What a standby that missed `topic`'s commits after `position` has: its events and head
    /// there — then, in the same transaction, `reused` new events appended in their place.
    private func loseCommits(_ log: PostgresEventLog, _ topic: String, after position: Int, reused: [String] = []) async throws {
        try await log.client.withTransaction(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(log.prefix)_events WHERE topic = '\(topic)' AND position > \(position)"),
                                       logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "UPDATE \(log.prefix)_topics SET head = \(position) WHERE topic = '\(topic)'"),
                                       logger: logger)
            if !reused.isEmpty { try await log.append(contentsOf: reused, to: topic, on: connection) }
        }
    }

    private func epoch(_ log: PostgresEventLog, _ topic: String) async throws -> String {
        try await TestDatabase.run("SELECT epoch FROM \(log.prefix)_topics WHERE topic = '\(topic)'").first ?? ""
    }

    @Test func lostCommitsResetConnectedClientsRenewTheEpochAndTheNextEventsArrive() async throws {
        let name = "moved-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let instance = try Instance(prefix: log.prefix, name: name)
            defer { instance.stop() }
            let feed = try await instance.feeds.feed(of: "orders")
            await waitUntil { instance.listener.state.isListening }
            let connected = Client()
            feed.client().subscribe(connected)
            for i in 1...20 { try await log.append("old\(i)", to: "orders") }
            await waitUntil { connected.values.count == 20 }
            let oldEpoch = try await epoch(log, "orders")
            let lastOld = try #require(Self.ids(connected.values).last)
            // The failover: the new primary has only the first 10, and every connection is cut.
            try await loseCommits(log, "orders", after: 10)
            try await TestDatabase.terminate(applicationName: name)
            for i in 11...13 { try await log.append("new\(i)", to: "orders") }
            await waitUntil { Self.events(connected.values).count == 23 }
            #expect(Self.events(connected.values) == (1...20).map { "old\($0)" } + (11...13).map { "new\($0)" })
            // Told exactly where the history moved: a reset after the 20 old events, before the new.
            let after = Array(connected.values.dropFirst(20))
            #expect(after.first.map { if case .reset = $0 { true } else { false } } == true)
            #expect(Self.resets(connected.values) == 1)
            let newEpoch = try await epoch(log, "orders")
            #expect(newEpoch != oldEpoch)
            #expect(Self.ids(after).map(\.position) == [11, 12, 13] && Self.ids(after).allSatisfy { $0.epoch == newEpoch })
            // A client resuming with an id of the lost history is reset where the histories parted,
            // then gets the current history from there; one resuming from before the parting goes
            // on without a reset (the same events, renamed).
            let resuming = Client()
            feed.client(after: lastOld).subscribe(resuming)
            let beforeParting = Client()
            feed.client(after: EventID(epoch: oldEpoch, position: 5)).subscribe(beforeParting)
            try await log.append("new14", to: "orders")
            await waitUntil { Self.events(resuming.values).count == 4 && Self.events(beforeParting.values).count == 9 }
            #expect(Self.resets(resuming.values) == 1 && Self.events(resuming.values) == (11...14).map { "new\($0)" })
            #expect(resuming.values.first.map { if case .reset = $0 { true } else { false } } == true)
            #expect(Self.resets(beforeParting.values) == 0)
            #expect(Self.events(beforeParting.values) == (6...10).map { "old\($0)" } + (11...14).map { "new\($0)" })
            #expect(Self.ids(beforeParting.values).allSatisfy { $0.epoch == newEpoch })
        }
    }

    @Test func positionsReusedBeforeAnyoneLookedAreToldByTheirTags() async throws {
        let name = "reused-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let instance = try Instance(prefix: log.prefix, name: name)
            defer { instance.stop() }
            let feed = try await instance.feeds.feed(of: "orders")
            await waitUntil { instance.listener.state.isListening }
            let connected = Client()
            feed.client().subscribe(connected)
            for i in 1...20 { try await log.append("old\(i)", to: "orders") }
            await waitUntil { connected.values.count == 20 }
            // The head is back at 20 when the reader looks, but positions 11–20 are other events.
            try await loseCommits(log, "orders", after: 10, reused: (11...20).map { "new\($0)" })
            await waitUntil { Self.events(connected.values).count == 30 }
            #expect(Self.events(connected.values) == (1...20).map { "old\($0)" } + (11...20).map { "new\($0)" })
            #expect(Self.resets(connected.values) == 1)
            let after = Array(connected.values.dropFirst(20))
            #expect(after.first.map { if case .reset = $0 { true } else { false } } == true)
            #expect(Self.ids(after).map(\.position) == Array(11...20))
        }
    }

    @Test func anIdAheadOfTheHeadGetsAResetThenTheNextEventsNeverSilence() async throws {
        let name = "ahead-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let instance = try Instance(prefix: log.prefix, name: name)
            defer { instance.stop() }
            let first = try await log.append("one", to: "t")
            let feed = try await instance.feeds.feed(of: "t")
            await waitUntil { instance.listener.state.isListening }
            let future = Client()
            feed.client(from: ResumePoint(lastEventID: "\(first.epoch)-1000")).subscribe(future)
            await waitUntil { Self.resets(future.values) == 1 }
            for i in 2...4 { try await log.append("e\(i)", to: "t") }
            await waitUntil { Self.events(future.values).count == 3 }
            #expect(Self.events(future.values) == ["e2", "e3", "e4"] && Self.resets(future.values) == 1)
            #expect(future.values.first.map { if case .reset = $0 { true } else { false } } == true)
            // Nothing was renewed: a forged id resets its own client only.
            #expect(try await epoch(log, "t") == first.epoch)
        }
    }

    @Test func readingATopicNeverPublishedWritesNothingAndItsFirstEventsFollowWithoutAReset() async throws {
        let name = "fresh-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let instance = try Instance(prefix: log.prefix, name: name)
            defer { instance.stop() }
            #expect(try await log.head(of: "fresh") == .origin)
            let feed = try await instance.feeds.feed(of: "fresh")
            #expect(feed.lastEventID == .origin)
            let rows = { try await TestDatabase.run("SELECT count(*)::text FROM \(log.prefix)_topics") }
            #expect(try await rows() == ["0"])
            #expect(try await log.entries(of: "fresh", after: .origin, limit: 10).isEmpty)
            await waitUntil { instance.listener.state.isListening }
            let live = Client()
            feed.client().subscribe(live)
            let fromOrigin = Client()
            feed.client(after: .origin).subscribe(fromOrigin)
            // A few hundred names opened, none published: no row.
            for i in 0..<200 { _ = try await instance.feeds.feed(of: "never-\(i)") }
            #expect(try await rows() == ["0"])
            try await log.append(contentsOf: ["a", "b"], to: "fresh")
            await waitUntil { live.values.count == 2 && fromOrigin.values.count == 2 }
            #expect(Self.events(live.values) == ["a", "b"] && Self.events(fromOrigin.values) == ["a", "b"])
            #expect(Self.resets(live.values) == 0 && Self.resets(fromOrigin.values) == 0)
            // The origin stays a valid id: a client resuming from it later gets every event.
            let later = Client()
            feed.client(after: .origin).subscribe(later)
            await waitUntil { later.values.count == 2 }
            #expect(Self.events(later.values) == ["a", "b"] && Self.resets(later.values) == 0)
        }
    }

    @Test func topicFeedsBeyondTheLimitAreRefusedUntilIdleOnesAreReleased() async throws {
        let name = "bounded-\(UInt32.random(in: 0...UInt32.max))"
        try await TestDatabase.withLog { log in
            let instance = try Instance(prefix: log.prefix, name: name, maximumFeeds: 2)
            defer { instance.stop() }
            _ = try await instance.feeds.feed(of: "a")
            _ = try await instance.feeds.feed(of: "b")
            _ = try await instance.feeds.feed(of: "a")   // in use: no new feed
            do {
                _ = try await instance.feeds.feed(of: "c")
                Issue.record("a third feed was made")
            } catch let error as PostgresEventLogError {
                #expect(error.kind == .limitReached && error.feedRefusal == .limitReached)
            }
            do {
                _ = try await instance.feeds.feed(of: "not a topic")
                Issue.record("a feed of an invalid name was made")
            } catch let error as PostgresEventLogError {
                #expect(error.kind == .invalid && error.feedRefusal == .invalid)
            }
            #expect(instance.feeds.releaseIdle(now: .now + .seconds(3_600)).sorted() == ["a", "b"])
            _ = try await instance.feeds.feed(of: "c")
            #expect(instance.feeds.topics == ["c"])
        }
    }
}
