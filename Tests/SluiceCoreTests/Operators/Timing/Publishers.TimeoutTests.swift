import SluiceCore
import SluiceTesting
import Testing

@Suite struct TimeoutTests {
    @Test func finishesWhenNothingArrivesInTime() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.timeout(.ms(100), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance(by: .ms(60))
        subject.send(1)                          // restarts the clock
        scheduler.advance(by: .ms(99))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        scheduler.advance(by: .ms(1))
        #expect(subscriber.completion == .finished)
    }

    @Test func failsWithTheCustomErrorAndCancelsTheUpstream() {
        let scheduler = VirtualScheduler()
        var cancelled = false
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.handleEvents(receiveCancel: { cancelled = true })
            .timeout(.ms(100), scheduler: scheduler, customError: { TestError(code: 42) })
            .subscribe(subscriber)
        scheduler.advance(by: .ms(100))
        #expect(subscriber.completion == .failure(TestError(code: 42)))
        #expect(cancelled)
        subject.send(1)
        scheduler.run()
        #expect(subscriber.values.isEmpty)
    }

    @Test func theUpstreamsCompletionIsDeliveredAndStopsTheClock() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2].publisher.timeout(.ms(100), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance()
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func limitedDemand() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.timeout(.ms(100), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance()
        #expect(subscriber.values == [1])
        scheduler.advance(by: .ms(100))
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelStopsTheClock() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().timeout(.ms(100), scheduler: scheduler).subscribe(subscriber)
        subscriber.cancel()
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.completion == nil)
    }

    /// As Apple's, a cancel made while the upstream's completion waits on the scheduler drops it;
    /// the scheduled action holds the subscriber until it runs.
    @Test func aCompletionInFlightIsDroppedByACancel() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.timeout(.ms(100), scheduler: scheduler).subscribe(subscriber)
            subject.send(completion: .finished)
            subscriber.cancel()
        }
        #expect(weakSubscriber != nil)
        scheduler.advance(by: .ms(1))
        #expect(weakSubscriber == nil)
    }

    /// Apple's `timeout` traps on the immediate scheduler, whose timer would fire while being set.
    @Test func theImmediateSchedulerStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PassthroughSubject<Int, Never>().timeout(0, scheduler: ImmediateScheduler.shared).sink { _ in }
        }
        if let result {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("cannot use ImmediateScheduler"), "stderr: \(message)")
        }
    }
}
