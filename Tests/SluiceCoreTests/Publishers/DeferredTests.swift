import SluiceCore
import SluiceTesting
import Testing

@Suite("Deferred")
struct DeferredTests {
    @Test func createsThePublisherOnEachSubscriptionOnly() {
        let created = Shared(0)
        let deferred = Deferred { () -> Just<Int> in
            created.mutate { $0 += 1 }
            return Just(created.value)
        }
        #expect(created.value == 0)

        let first = TestSubscriber<Int, Never>()
        deferred.subscribe(first)
        let second = TestSubscriber<Int, Never>()
        deferred.subscribe(second)

        #expect(created.value == 2)
        #expect(first.eventDescriptions == ["subscription(Just)", "value(1)", "finished"])
        #expect(second.values == [2])
    }

    @Test func exposesItsClosure() {
        let deferred = Deferred { Just(7) }
        #expect(deferred.createPublisher().output == 7)
    }

    @Test func forwardsAFailure() {
        let deferred = Deferred { Fail<Int, TestError>(error: TestError(code: 3)) }
        let subscriber = TestSubscriber<Int, TestError>()
        deferred.subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(TestError(code: 3)))
    }

    @Test func honoursLimitedDemand() {
        let deferred = Deferred { [1, 2, 3].publisher }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        deferred.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func honoursDemandReturnedFromReceive() {
        let deferred = Deferred { (1...5).publisher }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        deferred.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)
    }

    @Test func nothingArrivesAfterCancel() {
        let subject = PassthroughSubject<Int, Never>()
        let deferred = Deferred { subject }
        let subscriber = TestSubscriber<Int, Never>()
        deferred.subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        subject.send(2)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "value(1)"])
    }

    @Test func eachSubscriberGetsItsOwnUpstream() {
        let deferred = Deferred { PassthroughSubject<Int, Never>() }
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        deferred.subscribe(first)
        deferred.subscribe(second)
        #expect(first.subscription.map(\.combineIdentifier) != second.subscription.map(\.combineIdentifier))
    }

    @Test func releasesTheSubscriberAfterCompletion() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            Deferred { Just(1) }.subscribe(subscriber)
            #expect(subscriber.completion == .finished)
        }
        #expect(weakSubscriber == nil)
    }

    @Test func releasesTheSubscriberAfterCancel() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            Deferred { subject }.subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(weakSubscriber == nil)
    }

    // MARK: Contract

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Deferred { [1, 2, 3].publisher } }
        try await PublisherContract.verify { Deferred { Fail<Int, TestError>(error: TestError()) } }
    }
}
