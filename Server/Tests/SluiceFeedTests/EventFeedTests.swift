import MetricsTestKit
import ServerTestSupport
import Sluice
import SluiceFeed
import SluiceTesting
import Testing

/// The feed as a publisher of clients, without sockets: numbering, replay and reset, per-client
/// demand and policy, stats, shutdown; and the contract kit over a client.
@Suite struct EventFeedTests {
    private func ids(_ messages: [FeedMessage<String>]) -> [UInt64] {
        messages.compactMap { if case .event(let id, _) = $0 { id.position } else { nil } }
    }

    @Test func numbersEachEventOnceAndEachClientPullsAtItsOwnPace() {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject)
        let fast = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        let slow = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .max(1))
        feed.client().subscribe(fast)
        feed.client().subscribe(slow)
        for value in ["a", "b", "c"] { subject.send(value) }
        #expect(fast.values == [.event(id: feed.id(1), "a"), .event(id: feed.id(2), "b"), .event(id: feed.id(3), "c")])
        #expect(slow.values == [.event(id: feed.id(1), "a")])   // the rest waits in its buffer
        slow.request(.max(5))
        #expect(slow.values == fast.values)
        #expect(feed.stats == FeedStats(connectedClients: 2, eventsPublished: 3, eventsDelivered: 6))
        slow.cancel()
        #expect(feed.stats.connectedClients == 1)
    }

    @Test func replaysAfterAnIdOrResetsWhenItIsTooOld() {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject, options: .init(replay: 3))
        for i in 1...10 { subject.send("v\(i)") }
        let within = TestSubscriber<FeedMessage<String>, FeedClientFailure>()
        feed.client(after: feed.id(8)).subscribe(within)
        let edge = TestSubscriber<FeedMessage<String>, FeedClientFailure>()
        feed.client(after: feed.id(7)).subscribe(edge)
        let tooOld = TestSubscriber<FeedMessage<String>, FeedClientFailure>()
        feed.client(after: feed.id(2)).subscribe(tooOld)
        let current = TestSubscriber<FeedMessage<String>, FeedClientFailure>()
        feed.client(after: feed.id(10)).subscribe(current)
        subject.send("v11")
        #expect(ids(within.values) == [9, 10, 11])
        #expect(ids(edge.values) == [8, 9, 10, 11])
        #expect(tooOld.values.first == .reset(missed: 5))
        #expect(ids(tooOld.values) == [8, 9, 10, 11])
        #expect(current.values == [.event(id: feed.id(11), "v11")])
    }

    /// A transport fixes a new client's start when it answers the request and joins the client a
    /// little later: the client gets what the feed sent in between, and counts as new, not resumed.
    @Test func aStartFixedEarlierGetsWhatCameSinceAndCountsAsANewClient() throws {
        let metrics = TestMetrics()
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject, options: .init(name: "fixed", metrics: metrics))
        subject.send("a")
        let fixed = feed.fixing(.live)
        #expect(fixed == .liveSince(feed.id(1)))
        #expect(feed.fixing(.after(feed.id(1))) == .after(feed.id(1)))
        #expect(feed.fixing(.unreadable("70")) == .unreadable("70"))
        subject.send("b")
        subject.send("c")
        let late = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client(from: fixed).subscribe(late)
        let live = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client(from: .live).subscribe(live)
        subject.send("d")
        #expect(late.values == [.event(id: feed.id(2), "b"), .event(id: feed.id(3), "c"), .event(id: feed.id(4), "d")])
        #expect(ids(live.values) == [4])
        let resumes = try metrics.expectCounter("sluice_feed_resumes_total", [("feed", "fixed")])
        #expect(resumes.totalValue == 0)
        feed.client(from: .after(feed.id(3))).subscribe(TestSubscriber<FeedMessage<String>, FeedClientFailure>())
        #expect(resumes.totalValue == 1)
    }

    /// A feed with `maximumClients` clients refuses the next one before it begins, counts and logs
    /// the refusal, and admits one again once a client has left.
    @Test func aFullFeedRefusesTheNextClientUntilOneLeaves() throws {
        let metrics = TestMetrics()
        let logs = RecordingLogHandler.Store()
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject, options: .init(maximumClients: 2, name: "small", logger: RecordingLogHandler.logger(logs),
                                                     metrics: metrics))
        let first = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        let second = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client().subscribe(first)
        feed.client().subscribe(second)
        #expect(feed.isFull)
        let refused = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client().subscribe(refused)
        #expect(refused.completion == .failure(.tooManyClients(limit: 2)))
        #expect(refused.values.isEmpty)
        #expect(feed.stats.connectedClients == 2)
        #expect(try metrics.expectCounter("sluice_feed_clients_refused_total", [("feed", "small")]).totalValue == 1)
        #expect(logs.records(containing: "refused").count == 1)

        second.cancel()
        #expect(!feed.isFull && feed.stats.connectedClients == 1)
        let third = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client().subscribe(third)
        subject.send("x")
        #expect(ids(first.values) == [1] && ids(third.values) == [1])
        #expect(feed.stats.connectedClients == 2 && feed.isFull)
    }

    /// The replay window lets the oldest events go once it holds `replayBytes`, even within
    /// `replay` events: a client from before them is told what it missed.
    @Test func theReplayWindowHoldsAtMostReplayBytes() {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject, options: .init(replay: 100, replayBytes: 10))
        for value in ["aaaa", "bbbb", "cccc", "dddd", "eeee"] { subject.send(value) }   // 4 bytes each: 2 kept
        let within = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client(after: feed.id(3)).subscribe(within)
        #expect(within.values == [.event(id: feed.id(4), "dddd"), .event(id: feed.id(5), "eeee")])
        let before = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client(after: feed.id(2)).subscribe(before)
        #expect(before.values == [.reset(missed: 1), .event(id: feed.id(4), "dddd"), .event(id: feed.id(5), "eeee")])
        // An event larger than the limit is not kept at all.
        subject.send(String(repeating: "f", count: 11))
        let after = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .unlimited)
        feed.client(after: feed.id(5)).subscribe(after)
        #expect(after.values == [.reset(missed: 1)])
    }

    @Test func dropsForTheSlowClientAloneAndCountsIt() throws {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject, options: .init(policy: .dropOldest(buffer: 2)))
        let stalled = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .max(1))
        let disconnecting = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .max(1))
        let healthy = TestSubscriber<FeedMessage<String>, FeedClientFailure>()
        feed.client().subscribe(stalled)
        feed.client(policy: .disconnect(buffer: 2)).subscribe(disconnecting)
        feed.client().subscribe(healthy)
        var emitted: [FeedStats] = []
        let watch = feed.statsPublisher.sink { emitted.append($0) }
        for i in 1...5 { subject.send("v\(i)") }
        #expect(ids(healthy.values) == [1, 2, 3, 4, 5])
        #expect(disconnecting.completion == .failure(.fellBehind(buffered: 2)))
        #expect(ids(disconnecting.values) == [1])
        stalled.request(.unlimited)
        #expect(stalled.values == [.event(id: feed.id(1), "v1"), .dropped(count: 2), .event(id: feed.id(4), "v4"), .event(id: feed.id(5), "v5")])
        #expect(feed.stats == FeedStats(connectedClients: 2, eventsPublished: 5, eventsDelivered: 9, eventsDropped: 2,
                                        clientsDisconnected: 1))
        #expect(emitted.first == FeedStats(connectedClients: 3))
        let last = try #require(emitted.last)
        #expect(last.eventsDropped == 2 && last.clientsDisconnected == 1 && last.connectedClients == 2)
        watch.cancel()
    }

    /// A stalled client holds at most `bufferBytes` of large events, whatever its policy's count:
    /// the oldest go (each counted), and it is told how many.
    @Test func aStalledClientHoldsAtMostTheBufferBytes() {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject, options: .init(policy: .dropOldest(buffer: 1_000), bufferBytes: 3_000))
        let stalled = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .none)
        feed.client().subscribe(stalled)
        for i in 1...10 { subject.send(String(repeating: "\(i % 10)", count: 1_000)) }
        #expect(feed.stats.eventsDropped == 7)
        stalled.request(.unlimited)
        #expect(stalled.values.first == .dropped(count: 7))
        #expect(ids(Array(stalled.values.dropFirst())) == [8, 9, 10])
    }

    @Test func finishingSendsTheLastMessageAfterWhatIsBuffered() {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject)
        let client = TestSubscriber<FeedMessage<String>, FeedClientFailure>(initialDemand: .max(1))
        feed.client().subscribe(client)
        subject.send("a")
        subject.send("b")
        feed.finish(reason: "bye")
        #expect(client.completion == nil)
        client.request(.max(2))
        #expect(client.values == [.event(id: feed.id(1), "a"), .event(id: feed.id(2), "b"), .shutdown(reason: "bye")])
        #expect(client.completion == .finished)
        #expect(feed.stats.connectedClients == 0)
        let late = TestSubscriber<FeedMessage<String>, FeedClientFailure>()
        feed.client().subscribe(late)
        #expect(late.values == [.shutdown(reason: "bye")] && late.completion == .finished)
    }

    @Test func anUpstreamThatEndsFinishesTheFeed() {
        let feed = EventFeed(["a", "b"].publisher)
        #expect(feed.isFinished && feed.lastEventID == feed.id(2))
        let client = TestSubscriber<FeedMessage<String>, FeedClientFailure>()
        feed.client(after: feed.id(0)).subscribe(client)
        #expect(client.values == [.event(id: feed.id(1), "a"), .event(id: feed.id(2), "b"), .shutdown(reason: "the event stream ended")])
    }

    @Test func aClientKeepsThePublisherContract() async throws {
        try await PublisherContract.verify {
            let feed = EventFeed((1...10).publisher)
            return feed.client(after: feed.id(0))
        }
    }
}

extension EventFeed {
    /// The id of this feed's event at `position`.
    func id(_ position: UInt64) -> EventID { EventID(epoch: lastEventID.epoch, position: position) }
}
