import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryDropWhile")
struct TryDropWhileTests {
    @Test func dropsUntilThePredicateFailsThenRepublishesEverything() {
        let subscriber = TestSubscriber<Int, any Error>()
        [0, 1, 5, 0, 7].publisher.eraseToAnyPublisher().tryDrop { $0 < 2 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(TryDropWhile)", "value(5)", "value(0)", "value(7)", "finished",
        ])
    }

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 3)).tryDrop { _ in true }.subscribe(subscriber)
        #expect(recordedTestError(subscriber) == TestError(code: 3))
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryDrop { value in
            if value == 2 { throw TestError(code: 2) }
            return true
        }.subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .none)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.events.count == 2)
        #expect(recordedTestError(subscriber) == TestError(code: 2))
    }

    @Test func predicateIsNotCalledAfterItReturnsFalse() {
        let subscriber = TestSubscriber<Int, any Error>()
        (1...5).publisher.eraseToAnyPublisher().tryDrop { value in
            if value > 3 { throw TestError() }
            return value < 2
        }.subscribe(subscriber)
        #expect(subscriber.values == [2, 3, 4, 5])
        #expect(subscriber.completion.map { if case .finished = $0 { true } else { false } } == true)
    }

    @Test func limitedDemandAndReplacedDrops() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.tryDrop { $0 < 2 }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.send(0) == .max(1))
        #expect(upstream.send(2) == .max(2))
        let limited = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        (1...4).publisher.eraseToAnyPublisher().tryDrop { $0 < 3 }.subscribe(limited)
        #expect(limited.values == [3])
        limited.request(.max(1))
        #expect(limited.values == [3, 4])
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryDrop { _ in false }.subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)

        let cancelling = TestSubscriber<Int, any Error>()
        cancelling.onValue = { _, me in
            me.cancel()
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().tryDrop { $0 < 2 }.subscribe(cancelling)
        #expect(cancelling.values == [2])
        #expect(cancelling.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.tryDrop { _ in true }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.tryDrop { _ in true }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.tryDrop { _ in throw TestError() }.subscribe($0) },
                                    end: { _ in other.send(1) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryDrop { _ in true }.subscribe(subscriber)
        #expect(upstream.subscriberDescription == "TryDropWhile")
        #expect(String(describing: subscriber.subscription!) == "TryDropWhile")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.eraseToAnyPublisher().tryDrop { $0 < 10 } }
        try await PublisherContract.verify {
            (1...30).publisher.eraseToAnyPublisher().tryDrop { value in
                if value == 5 { throw TestError() }
                return true
            }
        }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryDrop { _ in true }) == Publishers.TryDropWhile<PassthroughSubject<Int, Never>>.self)
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension TryDropWhileTests {
    @Test func eventsBeforeTheSubscriptionAreIgnored() {
        let outcome = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.tryDrop { _ in false } }
        #expect(outcome.demand == .none)
        #expect(outcome.events == [])
    }

    @Test func aSubscriptionAfterACancelIsNeitherRequestedFromNorCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.tryDrop { _ in false } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 0)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.tryDrop { _ in false } } == [])
    }
}
