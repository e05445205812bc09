import NIOConcurrencyHelpers
import ServerTestSupport
import Sluice
@testable import SluiceFeed
import SluiceTesting
import Testing

/// Clients resuming from far back take turns at the log's history: at most
/// `Options.historyReaders` reads at once, the others wait in order, clients that ask for the same
/// page share one read, and one that leaves while it waits reads nothing.
@Suite struct HistoryReadersTests {
    typealias Client = TestSubscriber<FeedMessage<String>, FeedClientFailure>

    /// A log's history whose reads wait until the gate opens, counted.
    final class GatedHistory: Sendable {
        private let log: LogFeedTests.MemoryLog
        private let state = NIOLockedValueBox((open: false, waiting: [CheckedContinuation<Void, Never>](), reading: 0,
                                               mostAtOnce: 0, reads: [EventID]()))

        init(_ log: LogFeedTests.MemoryLog) { self.log = log }

        var mostAtOnce: Int { state.withLockedValue { $0.mostAtOnce } }
        var reads: [EventID] { state.withLockedValue { $0.reads } }

        func open() {
            let waiting = state.withLockedValue { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume() }
        }

        var history: FeedHistory<String> {
            FeedHistory { [self] after, limit in
                state.withLockedValue { state in
                    state.reading += 1
                    state.mostAtOnce = max(state.mostAtOnce, state.reading)
                    state.reads.append(after)
                }
                await withCheckedContinuation { (gate: CheckedContinuation<Void, Never>) in
                    let open = state.withLockedValue { state in
                        if !state.open { state.waiting.append(gate) }
                        return state.open
                    }
                    if open { gate.resume() }
                }
                defer { state.withLockedValue { $0.reading -= 1 } }
                return try await log.history.entries(after: after, limit: limit)
            }
        }
    }

    /// A socket's side of a client, as the feed sees it, that can leave before its stream begins.
    final class LeavingSink: ClientSink, @unchecked Sendable {
        private let state = NIOLockedValueBox((left: false, subscribed: false))
        var subscribed: Bool { state.withLockedValue { $0.subscribed } }
        func leave() { state.withLockedValue { $0.left = true } }

        var hasLeft: Bool { state.withLockedValue { $0.left } }
        func receive(subscription: ClientSubscription) {
            state.withLockedValue { $0.subscribed = true }
            subscription.request(.unlimited)
        }
        func receive(_ message: ClientMessage) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<FeedClientFailure>) {}
        func feedIsFinishing() {}
    }

    private func positions(_ messages: [FeedMessage<String>]) -> [UInt64] {
        messages.compactMap { if case .event(let id, _) = $0 { id.position } else { nil } }
    }

    @Test func atMostHistoryReadersClientsReadTheHistoryAtOnceAndEveryOneGetsItsEvents() async {
        let log = LogFeedTests.MemoryLog()
        let gated = GatedHistory(log)
        let feed = EventFeed(log: log.live, after: EventID(epoch: log.epoch, position: 0), history: gated.history,
                             options: .init(replay: 8, historyReaders: 2))
        log.append(100)
        let clients = (0..<6).map { _ in Client() }
        for (index, client) in clients.enumerated() {
            feed.client(after: EventID(epoch: log.epoch, position: UInt64(index + 1))).subscribe(client)
        }
        #expect(await waitUntil { feed.historyTurns == (2, 4) }, "\(feed.historyTurns)")
        #expect(gated.reads.count == 2)
        gated.open()
        #expect(await waitUntil { clients.allSatisfy { $0.values.count >= 100 - 6 } })
        for (index, client) in clients.enumerated() {
            #expect(positions(client.values) == Array(UInt64(index + 2)...100))
        }
        #expect(gated.mostAtOnce == 2)
        #expect(feed.historyTurns == (0, 0))
        #expect(feed.stats.connectedClients == 6)
    }

    @Test func aClientThatLeavesWhileItWaitsForItsTurnReadsNothing() async {
        let log = LogFeedTests.MemoryLog()
        let gated = GatedHistory(log)
        let feed = EventFeed(log: log.live, after: EventID(epoch: log.epoch, position: 0), history: gated.history,
                             options: .init(replay: 8, historyReaders: 1))
        log.append(100)
        let first = Client()
        feed.client(after: EventID(epoch: log.epoch, position: 10)).subscribe(first)
        #expect(await waitUntil { feed.historyTurns == (1, 0) })
        let leaving = LeavingSink()
        feed.join(leaving, from: .after(EventID(epoch: log.epoch, position: 20)), policy: nil)
        #expect(await waitUntil { feed.historyTurns == (1, 1) })
        leaving.leave()
        gated.open()
        #expect(await waitUntil { first.values.count == 90 })
        #expect(await waitUntil { feed.historyTurns == (0, 0) })
        #expect(gated.reads == [EventID(epoch: log.epoch, position: 10)])   // the first client's read alone
        #expect(!leaving.subscribed)
        #expect(feed.stats.connectedClients == 1)
    }

    @Test func aStampedeFromOneIDIsOneReadAndEveryClientGetsWhatItMissed() async {
        let log = LogFeedTests.MemoryLog()
        let gated = GatedHistory(log)
        let feed = EventFeed(log: log.live, after: EventID(epoch: log.epoch, position: 0), history: gated.history,
                             options: .init(replay: 8, historyReaders: 2))
        log.append(50)
        // 300 clients of a stopped instance, all last at 40, and 3 that were behind, at 30.
        let stampede = (0..<300).map { _ in Client() }
        let behind = (0..<3).map { _ in Client() }
        for client in stampede { feed.client(after: EventID(epoch: log.epoch, position: 40)).subscribe(client) }
        for client in behind { feed.client(after: EventID(epoch: log.epoch, position: 30)).subscribe(client) }
        #expect(await waitUntil { gated.reads.count == 2 })
        #expect(feed.historyTurns == (2, 0))
        gated.open()
        #expect(await waitUntil { stampede.allSatisfy { $0.values.count == 10 } && behind.allSatisfy { $0.values.count == 20 } })
        #expect(stampede.allSatisfy { positions($0.values) == Array(41...50) })
        #expect(behind.allSatisfy { positions($0.values) == Array(31...50) })
        #expect(Set(gated.reads) == [EventID(epoch: log.epoch, position: 40), EventID(epoch: log.epoch, position: 30)])
        #expect(gated.reads.count == 2)   // one read per page asked for, not one per client
        #expect(feed.historyTurns == (0, 0))
        #expect(feed.stats.connectedClients == 303)
        // Live events go on to all of them.
        log.append(1)
        #expect(await waitUntil { stampede.allSatisfy { $0.values.count == 11 } && behind.allSatisfy { $0.values.count == 21 } })
    }
}
