import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryFilter")
struct TryFilterTests {
    @Test func keepsMatchingValuesAndFinishes() {
        let subscriber = TestSubscriber<Int, any Error>()
        (1...6).publisher.eraseToAnyPublisher().tryFilter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(TryFilter)", "value(2)", "value(4)", "value(6)", "finished",
        ])
    }

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 3)).tryFilter { _ in true }.subscribe(subscriber)
        #expect(recordedTestError(subscriber) == TestError(code: 3))
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryFilter { value in
            if value == 3 { throw TestError(code: 3) }
            return value != 2
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.events.count == 3)
        #expect(recordedTestError(subscriber) == TestError(code: 3))
    }

    @Test func droppedValuesAreReplacedSoLimitedDemandGetsEveryMatch() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().tryFilter { $0.isMultiple(of: 3) }.subscribe(subscriber)
        #expect(subscriber.values == [3])
        subscriber.request(.max(1))
        #expect(subscriber.values == [3, 6])
        subscriber.request(.max(1))
        #expect(subscriber.values == [3, 6, 9])
        subscriber.request(.max(1))
        #expect(subscriber.completion != nil)
    }

    @Test func demandBothWays() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2), demandPerValue: .max(5))
        upstream.tryFilter { $0 > 0 }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(0) == .max(1))
        #expect(upstream.send(1) == .max(5))
    }

    @Test func cancellingCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryFilter { _ in true }.subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantCancelFromReceive() {
        let subscriber = TestSubscriber<Int, any Error>()
        subscriber.onValue = { value, subscriber in
            if value == 4 { subscriber.cancel() }
            return .none
        }
        (1...9).publisher.eraseToAnyPublisher().tryFilter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(subscriber.values == [2, 4])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.tryFilter { _ in true }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.tryFilter { _ in true }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.tryFilter { _ in throw TestError() }.subscribe($0) },
                                    end: { _ in other.send(1) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryFilter { _ in true }.subscribe(subscriber)
        #expect(upstream.subscriberDescription == "TryFilter")
        #expect(String(describing: subscriber.subscription!) == "TryFilter")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.eraseToAnyPublisher().tryFilter { $0.isMultiple(of: 3) }
        }
        try await PublisherContract.verify {
            (1...30).publisher.eraseToAnyPublisher().tryFilter { value in
                if value == 20 { throw TestError() }
                return value.isMultiple(of: 2)
            }
        }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Base = PassthroughSubject<Int, Never>
        #expect(type(of: subject.tryFilter { _ in true }) == Publishers.TryFilter<Base>.self)
        #expect(type(of: subject.filter { _ in true }.tryFilter { _ in true }) == Publishers.TryFilter<Base>.self)
        #expect(type(of: subject.tryFilter { _ in true }.filter { _ in true }) == Publishers.TryFilter<Base>.self)
        #expect(type(of: subject.tryFilter { _ in true }.tryFilter { _ in true }) == Publishers.TryFilter<Base>.self)
    }

    @Test func fusedPredicatesAllApply() {
        let subscriber = TestSubscriber<Int, any Error>()
        (1...30).publisher.eraseToAnyPublisher()
            .filter { $0.isMultiple(of: 2) }
            .tryFilter { $0.isMultiple(of: 3) }
            .filter { $0 > 6 }
            .tryFilter { $0 < 30 }
            .subscribe(subscriber)
        #expect(subscriber.values == [12, 18, 24])
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension TryFilterTests {
    @Test func aValueBeforeTheSubscriptionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.tryFilter { _ in true } }
        }
    }

    @Test func aSubscriptionAfterACancelIsCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.tryFilter { _ in true } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 1)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.tryFilter { _ in true } } == ["downstream"])
    }
}
