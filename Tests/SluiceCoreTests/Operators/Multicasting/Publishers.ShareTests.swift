import Dispatch
import SluiceCore
import SluiceTesting
import Testing

/// A publisher that keeps its last subscriber and sends it nothing by itself (not even a
/// subscription).
private final class SilentPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    private(set) var subscriber: AnySubscriber<Int, Never>?
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        self.subscriber = AnySubscriber(subscriber)
    }
}

@Suite("Publishers.Share")
struct ShareTests {
    @Test func connectsOnTheFirstSubscriberAndSharesOneUpstreamSubscription() {
        let upstream = ManualPublisher<Int, TestError>()
        let shared = upstream.share()
        #expect(upstream.subscriberCount == 0)
        let first = TestSubscriber<Int, TestError>()
        shared.subscribe(first)
        #expect(upstream.subscriberCount == 1)
        #expect(upstream.subscription.requests == [.unlimited])
        upstream.send(1)
        let second = TestSubscriber<Int, TestError>()
        shared.subscribe(second)
        #expect(upstream.subscriberCount == 1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(first.eventDescriptions == ["subscription(Multicast)", "value(1)", "value(2)", "finished"])
        #expect(second.eventDescriptions == ["subscription(Multicast)", "value(2)", "finished"])
    }

    @Test func theFirstSubscriberIsAttachedBeforeTheUpstreamStarts() {
        let subscribed = CallCounter()
        let shared = Deferred { () -> Publishers.Sequence<ClosedRange<Int>, Never> in
            subscribed.increment()
            return (1...3).publisher
        }.share()
        let first = TestSubscriber<Int, Never>()
        shared.subscribe(first)
        #expect(first.eventDescriptions == ["subscription(Multicast)", "value(1)", "value(2)", "value(3)", "finished"])
        let late = TestSubscriber<Int, Never>()
        shared.subscribe(late)
        #expect(late.eventDescriptions == ["subscription(Multicast)", "finished"])
        #expect(subscribed.value == 1)
    }

    @Test func failureReachesEverySubscriberAndLaterOnes() {
        let upstream = ManualPublisher<Int, TestError>()
        let shared = upstream.share()
        let first = TestSubscriber<Int, TestError>()
        let second = TestSubscriber<Int, TestError>()
        shared.subscribe(first)
        shared.subscribe(second)
        upstream.send(completion: .failure(TestError(code: 4)))
        let late = TestSubscriber<Int, TestError>()
        shared.subscribe(late)
        for subscriber in [first, second, late] {
            #expect(subscriber.completion == .failure(TestError(code: 4)))
            #expect(subscriber.values.isEmpty)
        }
        #expect(upstream.subscriberCount == 1)
    }

    @Test func eachSubscriberHasItsOwnDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let shared = upstream.share()
        let limited = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        let returning = TestSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: .max(1))
        shared.subscribe(limited)
        shared.subscribe(returning)
        upstream.send(1)
        upstream.send(2)
        limited.request(.max(1))
        upstream.send(3)
        #expect(limited.values == [1, 3])
        #expect(returning.values == [1, 2, 3])
        #expect(upstream.subscription.requests == [.unlimited])
    }

    @Test func cancellingEverySubscriberCancelsTheUpstreamAndALaterOneReconnects() {
        let upstream = ManualPublisher<Int, TestError>()
        let shared = upstream.share()
        let first = TestSubscriber<Int, TestError>()
        let second = TestSubscriber<Int, TestError>()
        shared.subscribe(first)
        shared.subscribe(second)
        upstream.send(1)
        first.cancel()
        #expect(upstream.subscription.cancelCount == 0)
        upstream.send(2)
        second.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(3)  // to the cancelled connection: ignored
        #expect(first.values == [1])
        #expect(second.values == [1, 2])
        #expect(first.completion == nil && second.completion == nil)

        let third = TestSubscriber<Int, TestError>()
        shared.subscribe(third)
        #expect(upstream.subscriberCount == 2)
        upstream.send(4)
        #expect(third.values == [4])
        #expect(second.values == [1, 2])
    }

    @Test func reentrantCancelAndRequestFromReceive() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        shared.subscribe(cancelling)
        shared.subscribe(requesting)
        for value in 1...5 { subject.send(value) }
        subject.send(completion: .finished)
        #expect(cancelling.values == [1, 2])
        #expect(cancelling.completion == nil)
        #expect(requesting.values == [1, 2, 3, 4, 5])
        #expect(requesting.completion == .finished)
    }

    @Test func theLastCancelInsideReceiveDisconnects() {
        let upstream = ManualPublisher<Int, Never>()
        let shared = upstream.share()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        shared.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(subscriber.values == [1, 2])
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let upstream = ManualPublisher<Int, TestError>()
        let shared = upstream.share()
        let keeper = TestSubscriber<Int, TestError>()
        shared.subscribe(keeper)
        #expect(!subscriberSurvives({ shared.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ shared.subscribe($0) }, end: { _ in upstream.send(completion: .finished) }))
        let failing = ManualPublisher<Int, TestError>()
        let other = failing.share()
        #expect(!subscriberSurvives({ other.subscribe($0) }, end: { _ in failing.send(completion: .failure(TestError())) }))
    }

    @Test func cancellingEverySubscriberReleasesTheUpstreamSubscriptionAndTheShare() {
        let upstream = TrackedPublisher<Int, Never>()
        weak var weakShare: Publishers.Share<TrackedPublisher<Int, Never>>?
        do {
            let shared = upstream.share()
            weakShare = shared
            let first = TestSubscriber<Int, Never>()
            let second = TestSubscriber<Int, Never>()
            shared.subscribe(first)
            shared.subscribe(second)
            #expect(upstream.aliveCount == 1)
            first.cancel()
            second.cancel()
            #expect(upstream.cancelCount == 1)
            #expect(upstream.aliveCount == 0)
        }
        #expect(weakShare == nil)
    }

    @Test func aCompletionBeforeTheUpstreamSubscriptionIsIgnored() {
        // As Apple's: the subject bridge passes a completion on only once it has its subscription.
        let upstream = SilentPublisher()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.share().subscribe(subscriber)
        upstream.subscriber?.receive(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Multicast)"])
    }

    @Test func aSubscriberKeepsTheShareGoingOnceTheShareIsReleased() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        weak var weakShare: Publishers.Share<ManualPublisher<Int, Never>>?
        do {
            let shared = upstream.share()
            weakShare = shared
            shared.subscribe(subscriber)
        }
        #expect(weakShare == nil)
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.values == [1, 2])
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func descriptions() {
        let shared = ManualPublisher<Int, Never>().share()
        let subscriber = TestSubscriber<Int, Never>()
        shared.subscribe(subscriber)
        #expect(String(describing: subscriber.subscription!) == "Multicast")
    }

    @Test func equalityIsIdentity() {
        let upstream = ManualPublisher<Int, Never>()
        let shared = upstream.share()
        let same = shared
        #expect(shared == same)
        #expect(shared != upstream.share())
    }

    @Test func types() {
        let upstream = ManualPublisher<Int, Never>()
        #expect(type(of: upstream.share()) == Publishers.Share<ManualPublisher<Int, Never>>.self)
        #expect(upstream.share().upstream === upstream)
        #expect(type(of: Publishers.Share(upstream: upstream)) == Publishers.Share<ManualPublisher<Int, Never>>.self)
    }

    @Test func concurrentSubscribersShareOneUpstreamSubscription() {
        for _ in 0..<100 {
            let subscribed = CallCounter()
            let shared = Deferred { () -> PassthroughSubject<Int, Never> in
                subscribed.increment()
                return PassthroughSubject()
            }.share()
            let subscribers = (0..<8).map { _ in TestSubscriber<Int, Never>() }
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                shared.subscribe(subscribers[index])
            }
            #expect(subscribed.value == 1)
            #expect(subscribers.allSatisfy { $0.subscriptionsReceived == 1 })
        }
    }

    @Test func concurrentSubscribeAndCancelKeepAtMostOneConnection() {
        for _ in 0..<50 {
            let upstream = TrackedPublisher<Int, Never>()
            let shared = upstream.share()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<5 {
                    let subscriber = TestSubscriber<Int, Never>()
                    shared.subscribe(subscriber)
                    subscriber.cancel()
                }
            }
            #expect(upstream.maxLive == 1)
            #expect(upstream.subscriptionCount >= 1)
            #expect(upstream.cancelCount == upstream.subscriptionCount)
            #expect(upstream.aliveCount == 0)
        }
    }

    @Test func concurrentValuesReachEachSubscriberSerialisedAndComplete() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        let subscribers = (0..<3).map { _ in TestSubscriber<Int, Never>() }
        let detectors = subscribers.map { subscriber in
            let detector = OverlapDetector()
            subscriber.onValue = { _, _ in
                detector.enter()
                detector.leave()
                return .none
            }
            shared.subscribe(subscriber)
            return detector
        }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for value in 0..<250 { subject.send(thread * 1_000 + value) }
        }
        for (subscriber, detector) in zip(subscribers, detectors) {
            #expect(subscriber.values.count == 1_000)
            #expect(Set(subscriber.values).count == 1_000)
            #expect(detector.overlaps == 0)
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.share() }
        try await PublisherContract.verify {
            let subject = PassthroughSubject<Int, TestError>()
            return PublisherContract.Fixture(subject.share()) {
                for value in 1...20 { subject.send(value) }
                subject.send(completion: .failure(TestError()))
            }
        }
    }
}
