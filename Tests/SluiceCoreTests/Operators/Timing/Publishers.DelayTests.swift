import SluiceCore
import SluiceTesting
import Testing

@Suite struct DelayTests {
    @Test func eachEventArrivesTheIntervalAfterItWasSent() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.delay(for: .ms(100), scheduler: scheduler).subscribe(subscriber)
        subject.send(1)
        scheduler.advance(by: .ms(50))
        subject.send(2)
        scheduler.advance(by: .ms(49))
        #expect(subscriber.values.isEmpty)
        scheduler.advance(by: .ms(1))
        #expect(subscriber.values == [1])
        subject.send(completion: .failure(TestError()))
        scheduler.advance(by: .ms(50))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
        scheduler.advance(by: .ms(50))
        #expect(subscriber.completion == .failure(TestError()))
    }

    @Test func finishesAfterTheDelay() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>()
        Just(7).delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance(by: .ms(999))
        #expect(subscriber.values.isEmpty)
        scheduler.advance(by: .ms(1))
        #expect(subscriber.values == [7])
        #expect(subscriber.completion == .finished)
    }

    @Test func limitedDemandAndReturnedDemand() {
        let scheduler = VirtualScheduler()
        let limited = TestSubscriber<Int, Never>(initialDemand: .max(2))
        (1...5).publisher.delay(for: .ms(10), scheduler: scheduler).subscribe(limited)
        scheduler.run()
        #expect(limited.values == [1, 2])
        let returning = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...5).publisher.delay(for: .ms(10), scheduler: scheduler).subscribe(returning)
        scheduler.run()
        #expect(returning.values == [1, 2, 3, 4, 5])
        #expect(scheduler.now == VirtualTime(nanoseconds: 0).advanced(by: .ms(10 * 6)))
    }

    @Test func cancelDropsWhatIsScheduled() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.delay(for: .ms(10), scheduler: scheduler).subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        scheduler.run()
        #expect(subscriber.values.isEmpty)
    }

    /// Apple's `delay` delivers a completion it scheduled before a cancel; the scheduled action
    /// holds the subscriber until then.
    @Test func aCompletionScheduledBeforeACancelIsStillDelivered() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        var completion: Subscribers.Completion<Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.delay(for: .ms(10), scheduler: scheduler).subscribe(subscriber)
            subject.send(1)
            subject.send(completion: .finished)
            subscriber.cancel()
            subscriber.onCompletion = { received, _ in completion = received }
        }
        #expect(weakSubscriber != nil)
        scheduler.run()
        #expect(completion == .finished)
        #expect(weakSubscriber == nil)
    }

    @Test func releasesTheSubscriber() {
        let scheduler = VirtualScheduler()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let s = TestSubscriber<Int, Never>()
            weakSubscriber = s
            Just(1).delay(for: .ms(1), scheduler: scheduler).subscribe(s)
            scheduler.run()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...4).publisher.delay(for: 0, scheduler: ImmediateScheduler.shared) }
    }

    @Test func publisherShape() {
        let scheduler = VirtualScheduler()
        let p = Just(1).delay(for: .ms(5), scheduler: scheduler)
        #expect(p.interval == .ms(5))
        #expect(p.tolerance == scheduler.minimumTolerance)
        #expect(p.scheduler === scheduler)
    }
}
