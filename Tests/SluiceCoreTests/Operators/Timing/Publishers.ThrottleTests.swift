import SluiceCore
import SluiceTesting
import Testing

@Suite struct ThrottleTests {
    private func run(latest: Bool) -> [Int] {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.throttle(for: .ms(100), scheduler: scheduler, latest: latest).subscribe(subscriber)
        subject.send(1)            // t = 0: published at once
        scheduler.advance()
        subject.send(2)            // within the interval: held
        subject.send(3)
        scheduler.advance(by: .ms(99))
        #expect(subscriber.values == [1])
        scheduler.advance(by: .ms(1))   // t = 100: the interval's value
        subject.send(completion: .finished)
        scheduler.run()
        #expect(subscriber.completion == .finished)
        return subscriber.values
    }

    @Test func latestTrueKeepsTheLastValueOfTheInterval() {
        #expect(run(latest: true) == [1, 3])
    }

    @Test func latestFalseKeepsTheFirstValueOfTheInterval() {
        #expect(run(latest: false) == [1, 2])
    }

    @Test func aCompletionFollowsAScheduledValue() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.throttle(for: .ms(100), scheduler: scheduler, latest: true).subscribe(subscriber)
        subject.send(1)
        scheduler.advance()
        subject.send(2)
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.completion == nil)
        scheduler.run()
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .failure(TestError()))
    }

    @Test func valuesWithoutDemandAreDropped() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.throttle(for: .ms(100), scheduler: scheduler, latest: true).subscribe(subscriber)
        subject.send(1)
        scheduler.run()
        subject.send(2)
        scheduler.run()
        #expect(subscriber.values == [1])
    }

    @Test func cancelStopsEverything() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.throttle(for: .ms(100), scheduler: scheduler, latest: true).subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        scheduler.run()
        #expect(subscriber.values.isEmpty)
    }

    @Test func releasesTheSubscriber() {
        let scheduler = VirtualScheduler()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let s = TestSubscriber<Int, Never>()
            weakSubscriber = s
            Just(1).throttle(for: .ms(10), scheduler: scheduler, latest: true).subscribe(s)
            scheduler.run()
        }
        #expect(weakSubscriber == nil)
    }
}
