import NIOConcurrencyHelpers
import ServerTestSupport
import Sluice
import SluiceFeed
import SluiceTesting
import Testing

/// A feed over a log, without a database: ids from the log, the same on two feeds of one log;
/// repeated entries ignored; breaks reach every client as a reset; a resuming client reads what the
/// window no longer has from the history, and is reset only where the history says so. (The
/// PostgreSQL log itself is tested against a real server in SluicePostgresTests.)
@Suite struct LogFeedTests {
    typealias Client = TestSubscriber<FeedMessage<String>, FeedClientFailure>

    /// A log of text held in memory: its entries as a publisher and as a history.
    final class MemoryLog: Sendable {
        let epoch: String
        private let entries = NIOLockedValueBox<[LogEntry<String>]>([])
        private let failing = NIOLockedValueBox(false)
        let live = PassthroughSubject<LogEntry<String>, Never>()

        init(epoch: String = "e1") { self.epoch = epoch }

        private let held = NIOLockedValueBox<[LogEntry<String>]>([])

        /// Appends `count` events; `live`: sent to the feeds at once, else held back until
        /// ``deliverHeld()`` (committed, not yet read by this instance).
        func append(_ count: Int, live isLive: Bool = true) {
            for _ in 0..<count {
                let entry = entries.withLockedValue { entries -> LogEntry<String> in
                    let entry = LogEntry<String>.event(EventID(epoch: epoch, position: UInt64(entries.count + 1)), "v\(entries.count + 1)")
                    entries.append(entry)
                    return entry
                }
                if isLive { live.send(entry) } else { held.withLockedValue { $0.append(entry) } }
            }
        }

        /// Sends the held-back events to the feeds.
        func deliverHeld() {
            held.withLockedValue { held in defer { held = [] }; return held }.forEach { live.send($0) }
        }

        /// Forgets the events up to `position`, as retention does.
        func trim(through position: Int) {
            entries.withLockedValue { entries in
                for index in 0..<position { entries[index] = .reset(epoch: epoch, after: 0, missed: nil) }
            }
        }

        func failReads(_ fail: Bool) { failing.withLockedValue { $0 = fail } }

        var history: FeedHistory<String> {
            FeedHistory { [self] after, limit in
                if failing.withLockedValue({ $0 }) { throw ReadFailure() }
                return entries.withLockedValue { entries in
                    guard after.epoch == epoch, after.position <= entries.count else {   // another epoch, or never had it
                        return [.reset(epoch: epoch, after: UInt64(entries.count), missed: nil)]
                    }
                    let rest = entries.dropFirst(Int(after.position))
                    var out: [LogEntry<String>] = []
                    if let firstKept = rest.firstIndex(where: { if case .event = $0 { true } else { false } }),
                       firstKept > Int(after.position) {
                        out.append(.reset(epoch: epoch, after: UInt64(firstKept), missed: UInt64(firstKept) - after.position))
                        out += rest[firstKept...].prefix(limit)
                    } else if rest.contains(where: { if case .event = $0 { true } else { false } }) {
                        out += rest.prefix(limit)
                    }
                    return out
                }
            }
        }

        struct ReadFailure: Error {}
    }

    private func positions(_ messages: [FeedMessage<String>]) -> [UInt64] {
        messages.compactMap { if case .event(let id, _) = $0 { id.position } else { nil } }
    }

    private func id(_ position: UInt64, _ epoch: String = "e1") -> EventID { EventID(epoch: epoch, position: position) }

    @Test func idsAreTheLogsSoTwoFeedsOfOneLogAgree() {
        let log = MemoryLog()
        let a = EventFeed(log: log.live, after: id(0), history: log.history)
        let b = EventFeed(log: log.live, after: id(0), history: log.history)
        let onA = Client(), onB = Client()
        a.client().subscribe(onA)
        b.client().subscribe(onB)
        log.append(3)
        #expect(onA.values == [.event(id: id(1), "v1"), .event(id: id(2), "v2"), .event(id: id(3), "v3")])
        #expect(onB.values == onA.values)
        #expect(a.lastEventID == id(3) && b.lastEventID == id(3))
    }

    @Test func inMemoryFeedsHaveEpochsOfTheirOwn() {
        let first = EventFeed(PassthroughSubject<String, Never>())
        let second = EventFeed(PassthroughSubject<String, Never>())
        #expect(first.lastEventID.epoch != second.lastEventID.epoch)
        #expect(first.lastEventID.position == 0)
    }

    @Test func repeatedEntriesAreIgnoredAndAHoleIsABreakForEveryClient() {
        let live = PassthroughSubject<LogEntry<String>, Never>()
        let feed = EventFeed(log: live, after: id(0), history: nil)
        let client = Client()
        feed.client().subscribe(client)
        live.send(.event(id(1), "a"))
        live.send(.event(id(1), "a"))           // a reader that read again after a reconnect
        live.send(.event(id(2), "b"))
        live.send(.event(id(5), "e"))           // 3 and 4 never came: a break
        live.send(.reset(epoch: "e2", after: 0, missed: nil))   // a new epoch
        live.send(.event(id(1, "e2"), "x"))
        #expect(client.values == [.event(id: id(1), "a"), .event(id: id(2), "b"), .reset(missed: 2), .event(id: id(5), "e"),
                                  .reset(missed: nil), .event(id: id(1, "e2"), "x")])
        // A client joining after the break resumes in the new epoch; an id of the old one is reset.
        let resumed = Client(), old = Client()
        feed.client(after: id(0, "e2")).subscribe(resumed)
        feed.client(after: id(2)).subscribe(old)
        #expect(resumed.values == [.event(id: id(1, "e2"), "x")])
        #expect(old.values == [.reset(missed: nil)])
    }

    @Test func aClientFurtherBackThanTheWindowReadsTheHistoryThenGoesLive() async {
        let log = MemoryLog()
        let feed = EventFeed(log: log.live, after: id(0), history: log.history, options: .init(replay: 10))
        log.append(2_500)
        let client = Client()
        feed.client(after: id(7)).subscribe(client)
        await waitUntil { client.values.count == 2_493 }
        log.append(5)
        #expect(positions(client.values) == Array(8...2_505))
        #expect(!client.values.contains { if case .reset = $0 { true } else { false } })
        #expect(feed.stats.connectedClients == 1)
    }

    /// A client may read at most `historyLimit` events, and `historyBytes` bytes, from the history
    /// before it joins: from further back, it is reset to the live events instead.
    @Test func aClientFurtherBackThanTheHistoryLimitsIsResetInstead() async {
        let log = MemoryLog()
        let counted = EventFeed(log: log.live, after: id(0), history: log.history, options: .init(replay: 10, historyLimit: 1_500))
        let sized = EventFeed(log: log.live, after: id(0), history: log.history,
                              options: .init(replay: 10, historyBytes: 3_000))   // "v1000" and on: 5 bytes each
        log.append(2_500)
        for feed in [counted, sized] {
            let far = Client()
            feed.client(after: id(7)).subscribe(far)
            #expect(await waitUntil { far.completion == nil && far.values.count >= 1 && positions(far.values).last == 2_500 })
            #expect(far.values.first == .reset(missed: nil))
            #expect(positions(far.values).count < 2_493)
            let near = Client()
            feed.client(after: id(2_000)).subscribe(near)
            #expect(await waitUntil { positions(near.values).last == 2_500 })
            #expect(positions(near.values) == Array(2_001...2_500))
        }
    }

    @Test func aClientAheadOfThisFeedGetsOnlyWhatComesAfterIt() async {
        let log = MemoryLog()
        let feed = EventFeed(log: log.live, after: id(0), history: log.history)
        log.append(3)
        log.append(2, live: false)                     // 4 and 5 committed, not read here yet
        let client = Client()
        feed.client(after: id(5)).subscribe(client)   // from an instance that had read further
        log.deliverHeld()
        log.append(2)                                  // 4...7 reach this feed
        await waitUntil { client.values.count == 2 }
        #expect(positions(client.values) == [6, 7])
        #expect(!client.values.contains { if case .reset = $0 { true } else { false } })
    }

    @Test func anIdAheadOfTheLogIsResetAndTheStreamGoesOn() async {
        let log = MemoryLog()
        let feed = EventFeed(log: log.live, after: id(0), history: log.history)
        log.append(3)
        let client = Client()
        feed.client(after: id(1_000)).subscribe(client)   // the log never had it (a failover lost it, or forged)
        await waitUntil { !client.values.isEmpty }
        log.append(2)
        await waitUntil { client.values.count == 3 }
        #expect(client.values.first == .reset(missed: nil))
        #expect(positions(client.values) == [4, 5])
    }

    @Test func theOriginStandsBeforeTheFirstEventOfWhateverHistoryFollows() async {
        let log = MemoryLog(epoch: "e7")
        let feed = EventFeed(log: log.live, after: .origin, history: log.history)
        let live = Client(), fromOrigin = Client()
        feed.client().subscribe(live)
        feed.client(after: .origin).subscribe(fromOrigin)
        log.append(2)
        #expect(live.values == [.event(id: EventID(epoch: "e7", position: 1), "v1"), .event(id: EventID(epoch: "e7", position: 2), "v2")])
        #expect(fromOrigin.values == live.values)
        let later = Client()
        feed.client(after: .origin).subscribe(later)
        #expect(later.values == live.values)
        #expect(feed.lastEventID == EventID(epoch: "e7", position: 2))
    }

    @Test func retentionThatPassedTheClientIsAResetThenWhatIsLeft() async {
        let log = MemoryLog()
        let feed = EventFeed(log: log.live, after: id(0), history: log.history, options: .init(replay: 5))
        log.append(30)
        log.trim(through: 20)
        let client = Client()
        feed.client(after: id(4)).subscribe(client)
        await waitUntil { client.values.count == 11 }
        #expect(client.values.first == .reset(missed: 16))
        #expect(positions(client.values) == Array(21...30))
    }

    @Test func anUnreadableHistoryFailsTheClientWithoutAReset() async {
        let log = MemoryLog()
        let feed = EventFeed(log: log.live, after: id(0), history: log.history, options: .init(replay: 5))
        log.append(30)
        log.failReads(true)
        let client = Client()
        feed.client(after: id(4)).subscribe(client)
        await waitUntil { client.completion != nil }
        #expect(client.values.isEmpty)
        guard case .failure(.historyUnavailable)? = client.completion else {
            Issue.record("expected historyUnavailable, got \(String(describing: client.completion))")
            return
        }
        #expect(feed.stats.connectedClients == 0)
    }

    @Test func unreadableAndForeignIdsAreReset() async {
        let log = MemoryLog()
        let feed = EventFeed(log: log.live, after: id(0), history: log.history)
        log.append(2)
        let garbage = Client(), foreign = Client()
        feed.client(from: ResumePoint(lastEventID: "70")).subscribe(garbage)
        feed.client(from: .after(id(1, "elsewhere"))).subscribe(foreign)   // the history says what "elsewhere" is
        await waitUntil { foreign.values == [.reset(missed: nil)] }
        log.append(1)
        #expect(garbage.values == [.reset(missed: nil), .event(id: id(3), "v3")])
        #expect(foreign.values == garbage.values)
    }

    @Test func eventIDsParseAndPrint() {
        #expect(EventID("ab12_x-42") == EventID(epoch: "ab12_x", position: 42))
        #expect(EventID(" e-7\r\n") == EventID(epoch: "e", position: 7))
        #expect(EventID("42") == nil && EventID("e-") == nil && EventID("-4") == nil && EventID("e-4x") == nil)
        #expect(EventID("é-4") == nil && EventID("e-+4") == nil)
        #expect(EventID(epoch: "e", position: 9).description == "e-9")
        #expect(ResumePoint(lastEventID: nil) == .live && ResumePoint(lastEventID: "  ") == .live)
        #expect(ResumePoint(lastEventID: "x") == .unreadable("x"))
    }

    @Test func aLogClientKeepsThePublisherContract() async throws {
        try await PublisherContract.verify {
            let log = MemoryLog()
            let feed = EventFeed(log: (1...10).map { LogEntry<String>.event(EventID(epoch: "e1", position: UInt64($0)), "v\($0)") }.publisher,
                                 after: EventID(epoch: "e1", position: 0), history: log.history)
            return feed.client(after: EventID(epoch: "e1", position: 0))
        }
    }
}
