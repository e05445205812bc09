import SluiceCore
import SluiceTesting
import Testing

@Suite struct ReceiveOnTests {
    @Test func deliversValuesAndCompletionOnlyWhenTheSchedulerRuns() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.receive(on: scheduler).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(ReceiveOn)"])   // the subscription is not scheduled
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(TestError()))
        subject.send(3)
        #expect(subscriber.values.isEmpty)
        scheduler.advance()
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .failure(TestError()))
    }

    @Test func finishes() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2, 3].publisher.receive(on: scheduler).subscribe(subscriber)
        scheduler.run()
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func limitedDemandPassesThrough() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.receive(on: scheduler).subscribe(subscriber)
        scheduler.run()
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        scheduler.run()
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func demandReturnedFromReceiveIsRequestedUpstream() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...5).publisher.receive(on: scheduler).subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        scheduler.run()
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)
    }

    @Test func nothingScheduledIsDeliveredAfterCancel() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.receive(on: scheduler).subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        scheduler.run()
        #expect(subscriber.values.isEmpty)
        #expect(subject.sendIsIgnoredAfterCancel(subscriber))
    }

    /// The values scheduled before the cancel are dropped; the completion, scheduled before it
    /// too, is still delivered, as Apple's `receive(on:)` does (its scheduled action holds the
    /// subscriber and delivers the completion whatever happened meanwhile).
    @Test func cancelFromInsideReceiveDropsTheScheduledValuesNotTheScheduledCompletion() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, s in
            if value == 2 { s.cancel() }
            return .none
        }
        (1...5).publisher.receive(on: scheduler).subscribe(subscriber)
        scheduler.run()
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
    }

    /// Apple's scheduled actions hold the subscriber until they run, even after a cancel.
    @Test func aScheduledDeliveryHoldsTheSubscriberUntilItRuns() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.receive(on: scheduler).subscribe(subscriber)
            subject.send(1)
            subscriber.cancel()
        }
        #expect(weakSubscriber != nil)
        scheduler.run()
        #expect(weakSubscriber == nil)
    }

    @Test func immediateSchedulerDeliversSynchronously() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.receive(on: ImmediateScheduler.shared).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func immediateSchedulerPassesReturnedDemandUpstream() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...3).publisher.receive(on: ImmediateScheduler.shared).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    // On the immediate scheduler a value goes downstream directly (no action is built): a send or
    // a cancel from inside `receive` behaves as when the scheduler runs the action at once.
    @Test func immediateSchedulerKeepsReentrantOrderAndCancel() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        var cancellable: AnyCancellable?
        cancellable = subject.receive(on: ImmediateScheduler.shared).sink { value in
            received.append(value)
            if value == 1 { subject.send(2) }   // delivered once this receive has returned
            if value == 2 { cancellable?.cancel() }
        }
        subject.send(1)
        subject.send(3)
        #expect(received == [1, 2])
        #expect(cancellable != nil)
    }

    @Test func releasesTheSubscriberAfterCancelAndAfterCompletion() {
        let scheduler = VirtualScheduler()
        weak var cancelled: TestSubscriber<Int, Never>?
        weak var completed: TestSubscriber<Int, Never>?
        do {
            let a = TestSubscriber<Int, Never>()
            cancelled = a
            PassthroughSubject<Int, Never>().receive(on: scheduler).subscribe(a)
            a.cancel()
            let b = TestSubscriber<Int, Never>()
            completed = b
            Just(1).receive(on: scheduler).subscribe(b)
            scheduler.run()
        }
        #expect(cancelled == nil)
        #expect(completed == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.receive(on: ImmediateScheduler.shared) }
    }

    @Test func publisherShape() {
        let scheduler = VirtualScheduler()
        let publisher = Just(1).receive(on: scheduler, options: nil)
        #expect(publisher.scheduler === scheduler)
        #expect(publisher.options == nil)
        #expect(publisher.upstream == Just(1))
    }
}

extension PassthroughSubject where Output == Int, Failure == Never {
    /// Sends one more value and reports whether `subscriber` stayed without it.
    fileprivate func sendIsIgnoredAfterCancel(_ subscriber: TestSubscriber<Int, Never>) -> Bool {
        send(99)
        return !subscriber.values.contains(99)
    }
}
