import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.CollectByCount")
struct CollectByCountTests {
    @Test func publishesFullBatchesThenTheRemainder() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect(2).subscribe(subscriber)
        for value in 1...5 { subject.send(value) }
        #expect(subscriber.values == [[1, 2], [3, 4]])
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == [
            "subscription(CollectByCount)", "value([1, 2])", "value([3, 4])", "value([5])", "finished",
        ])
    }

    @Test func noRemainderNoExtraArray() {
        let subscriber = TestSubscriber<[Int], Never>()
        (1...4).publisher.eraseToAnyPublisher().collect(2).subscribe(subscriber)
        #expect(subscriber.values == [[1, 2], [3, 4]])
        #expect(subscriber.completion == .finished)
    }

    @Test func failureDropsThePartialBatch() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect(3).subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.eventDescriptions == ["subscription(CollectByCount)", "failure(TestError(code: 3))"])
    }

    @Test func demandCountsArrays() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(2), demandPerValue: .max(1))
        upstream.collect(3).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(6)])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .max(3))  // the subscriber's .max(1) per array, times 3
        subscriber.request(.unlimited)
        #expect(upstream.subscription.requests == [.max(6), .unlimited])
    }

    @Test func oneArrayAtATime() {
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().collect(2).subscribe(subscriber)
        #expect(subscriber.values == [[1, 2]])
        subscriber.request(.max(1))
        #expect(subscriber.values == [[1, 2], [3, 4]])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[1, 2], [3, 4], [5]])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        upstream.collect(2).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(CollectByCount)"])
    }

    @Test func cancelInsideReceiveOfTheRemainderSuppressesFinished() {
        let subscriber = TestSubscriber<[Int], Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        (1...3).publisher.eraseToAnyPublisher().collect(5).subscribe(subscriber)
        #expect(subscriber.values == [[1, 2, 3]])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriberOnCancelAndCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<[Int], Never>?
        do {
            let subscriber = TestSubscriber<[Int], Never>()
            weakSubscriber = subscriber
            subject.collect(2).subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(weakSubscriber == nil)
        do {
            let subscriber = TestSubscriber<[Int], Never>()
            weakSubscriber = subscriber
            subject.collect(2).subscribe(subscriber)
        }
        #expect(weakSubscriber != nil)
        subject.send(completion: .finished)
        #expect(weakSubscriber == nil)
    }

    @Test func aSubscriptionAfterACancelBeforeAnySubscriptionIsIgnoredAsInCombine() throws {
        let upstream = LatePublisher<Int, Never>()
        upstream.collect(2).subscribe(TestSubscriber<[Int], Never>())
        try #require(upstream.subscriber as? any Subscription).cancel()
        let late = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 0)
        #expect(late.requests == [])
    }

    @Test func aSecondSubscriptionAfterACancelIsCancelled() throws {
        let upstream = LatePublisher<Int, Never>()
        upstream.collect(2).subscribe(TestSubscriber<[Int], Never>())
        let first = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: first)
        try #require(upstream.subscriber as? any Subscription).cancel()
        let second = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: second)
        #expect(first.cancelCount == 1)
        #expect(second.cancelCount == 1)
    }

    @Test func mirrorShowsTheBufferAndCount() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
        upstream.collect(3).subscribe(subscriber)
        upstream.send(7)
        let children = Mirror(reflecting: subscriber.subscription!).children
        #expect(children.map { String(describing: $0.value) }.suffix(2) == ["[7]", "3"])
    }

    @Test func descriptionAndMirror() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        upstream.collect(2).subscribe(subscriber)
        #expect(upstream.subscriberDescription == "CollectByCount")
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription) == "CollectByCount")
        let playground = (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription
        #expect(playground as? String == "CollectByCount")
        #expect(Mirror(reflecting: subscription).children.map(\.label) == ["downstream", "upstreamSubscription", "buffer", "count"])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...7).publisher.eraseToAnyPublisher().collect(3) }
        try await PublisherContract.verify { (1...6).publisher.eraseToAnyPublisher().collect(2) }
    }

    @Test func type() {
        let subject = PassthroughSubject<Int, Never>()
        let collected = subject.collect(4)
        #expect(Swift.type(of: collected) == Publishers.CollectByCount<PassthroughSubject<Int, Never>>.self)
        #expect(collected.count == 4)
        #expect(Just(1).collect(2) == Publishers.CollectByCount(upstream: Just(1), count: 2))
    }
}
