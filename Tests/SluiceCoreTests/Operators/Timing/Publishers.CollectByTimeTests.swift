import SluiceCore
import SluiceTesting
import Testing

@Suite struct CollectByTimeTests {
    @Test func byTimeCollectsEachPeriod() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        scheduler.advance(by: .ms(100))
        #expect(subscriber.values == [[1, 2]])
        scheduler.advance(by: .ms(100))          // an empty period publishes nothing
        subject.send(3)
        subject.send(completion: .finished)
        scheduler.advance()
        #expect(subscriber.values == [[1, 2], [3]])
        #expect(subscriber.completion == .finished)
    }

    @Test func byTimeOrCountClosesFullGroupsEarly() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        subject.collect(.byTimeOrCount(scheduler, .ms(100), 2)).subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        scheduler.advance()                      // the full group's delivery, due now
        #expect(subscriber.values == [[1, 2]])
        scheduler.advance(by: .ms(100))
        #expect(subscriber.values == [[1, 2], [3]])
    }

    // Apple's (since the SDKs of Xcode 11.3): a group, the failure and the finish reach the
    // subscriber from the scheduler, never from inside the upstream's `send`.

    @Test func aFullGroupArrivesOnTheSchedulerNotInsideSend() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        subject.collect(.byTimeOrCount(scheduler, .ms(100), 2)).subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values.isEmpty)
        scheduler.advance()
        #expect(subscriber.values == [[1, 2]])
    }

    @Test func theFinishAndTheLastGroupArriveOnTheScheduler() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        subject.collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == nil)
        scheduler.advance()
        #expect(subscriber.values == [[1]])
        #expect(subscriber.completion == .finished)
    }

    @Test func aFailureArrivesOnTheSchedulerAndDropsTheCollectedValues() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.completion == nil)
        scheduler.advance()
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(TestError()))
    }

    @Test func aCancelBeforeTheScheduledFinishDeliversNothing() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        subject.collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        subscriber.cancel()
        scheduler.advance(by: .ms(500))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == nil)
    }

    // Apple's demand upstream under `.byTime`: `.max(1)` for each request of the subscriber,
    // whatever its size, and `.max(1)` returned for each value — 100 values make 101 `.max(1)`.

    @Test func byTimeAsksForOneValueAtATime() {
        let scheduler = VirtualScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(2))
        upstream.collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        let returned = (0..<100).map { upstream.send($0) }
        #expect(returned == Array(repeating: .max(1), count: 100))
        subscriber.request(.max(2))
        #expect(upstream.subscription.requests == [.max(1), .max(1)])
        scheduler.advance(by: .ms(100))
        #expect(subscriber.values == [Array(0..<100)])
    }

    // Apple's demand upstream under `.byTimeOrCount` (its documentation: "When this publisher
    // receives a request for `.max(n)` elements, it requests `.max(count * n)` from the upstream
    // publisher"): `count × n` for a request of `n`, the same for demand the subscriber returns
    // from a group, and nothing returned for a value.

    @Test func byTimeOrCountAsksForCountTimesTheDemand() {
        let scheduler = VirtualScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(2), demandPerValue: .max(1))
        upstream.collect(.byTimeOrCount(scheduler, .ms(100), 3)).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(6)])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .none)
        scheduler.advance()
        #expect(subscriber.values == [[1, 2, 3]])
        #expect(upstream.subscription.requests == [.max(6), .max(3)])
        subscriber.request(.unlimited)
        #expect(upstream.subscription.requests == [.max(6), .max(3), .unlimited])
    }

    @Test func groupsWaitForDemand() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(1))
        subject.collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        subject.send(1)
        scheduler.advance(by: .ms(100))
        #expect(subscriber.values == [[1]])
        subject.send(2)
        scheduler.advance(by: .ms(300))          // closed, but no demand: it waits
        #expect(subscriber.values == [[1]])
        subscriber.request(.max(1))
        scheduler.advance()
        #expect(subscriber.values == [[1], [2]])
    }

    @Test func cancelStopsTheTimer() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<[Int], Never>()
        PassthroughSubject<Int, Never>().collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        subscriber.cancel()
        #expect(scheduler.pendingCount == 0)
    }
}
