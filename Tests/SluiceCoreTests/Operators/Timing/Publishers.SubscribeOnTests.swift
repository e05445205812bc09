import SluiceCore
import SluiceTesting
import Testing

@Suite struct SubscribeOnTests {
    @Test func subscribingRequestingAndCancellingHappenOnTheScheduler() {
        let scheduler = VirtualScheduler()
        var requests: [Subscribers.Demand] = []
        var cancelled = false
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        (1...5).publisher
            .handleEvents(receiveCancel: { cancelled = true }, receiveRequest: { requests.append($0) })
            .subscribe(on: scheduler)
            .subscribe(subscriber)
        #expect(subscriber.events.isEmpty)        // not subscribed yet
        scheduler.advance()                       // subscribes; the request is scheduled in turn
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(requests == [.max(2)])
        scheduler.advance()
        #expect(requests == [.max(2), .max(1)])
        #expect(subscriber.values == [1, 2, 3])
        subscriber.cancel()
        #expect(!cancelled)
        scheduler.advance()
        #expect(cancelled)
    }

    @Test func valuesAndCompletionComeStraightThrough() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(on: scheduler).subscribe(subscriber)
        scheduler.advance()
        subject.send(1)
        #expect(subscriber.values == [1])
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.completion == .failure(TestError()))
    }

    /// As Apple's, a scheduled request or cancel holds the subscriber until the scheduler runs it.
    @Test func aScheduledCancelHoldsTheSubscriberUntilItRuns() {
        let scheduler = VirtualScheduler()
        var cancelled = false
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            PassthroughSubject<Int, Never>()
                .handleEvents(receiveCancel: { cancelled = true })
                .subscribe(on: scheduler)
                .subscribe(subscriber)
            scheduler.advance()
            subscriber.cancel()
        }
        #expect(weakSubscriber != nil)
        #expect(!cancelled)
        scheduler.advance()
        #expect(cancelled)
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...4).publisher.subscribe(on: ImmediateScheduler.shared) }
    }
}
