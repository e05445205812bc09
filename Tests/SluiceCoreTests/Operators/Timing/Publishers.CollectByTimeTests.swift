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
        #expect(subscriber.values == [[1, 2]])
        scheduler.advance(by: .ms(100))
        #expect(subscriber.values == [[1, 2], [3]])
    }

    @Test func aFailureDropsTheCollectedValues() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect(.byTime(scheduler, .ms(100))).subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(TestError()))
    }

    @Test func groupsWaitForDemand() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
        subject.collect(.byTimeOrCount(scheduler, .ms(100), 1)).subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[1]])
        subscriber.request(.max(5))
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
