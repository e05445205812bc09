import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryPrefixWhile")
struct TryPrefixWhileTests {
    @Test func republishesWhileThePredicateHoldsThenFinishes() {
        let subscriber = TestSubscriber<Int, any Error>()
        (0...10).publisher.eraseToAnyPublisher().tryPrefix { $0 < 3 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(TryPrefixWhile)", "value(0)", "value(1)", "value(2)", "finished",
        ])
    }

    @Test func falseCancelsUpstreamAndFinishes() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryPrefix { $0 < 2 }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(TryPrefixWhile)", "value(1)", "finished"])
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryPrefix { value in
            if value == 2 { throw TestError(code: 2) }
            return true
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.events.count == 3)
        #expect(recordedTestError(subscriber) == TestError(code: 2))
    }

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 3)).tryPrefix { _ in true }.subscribe(subscriber)
        #expect(recordedTestError(subscriber) == TestError(code: 3))
    }

    @Test func demandAndLimitedDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2), demandPerValue: .max(4))
        upstream.tryPrefix { _ in true }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(4))
        let limited = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        (1...9).publisher.eraseToAnyPublisher().tryPrefix { $0 < 3 }.subscribe(limited)
        #expect(limited.values == [1])
        limited.request(.max(1))
        #expect(limited.values == [1, 2])
        limited.request(.max(1))
        #expect(limited.completion != nil)
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryPrefix { _ in true }.subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)

        let cancelling = TestSubscriber<Int, any Error>()
        cancelling.onValue = { _, me in
            me.cancel()
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().tryPrefix { _ in true }.subscribe(cancelling)
        #expect(cancelling.values == [1])
        #expect(cancelling.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.tryPrefix { _ in true }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.tryPrefix { _ in true }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.tryPrefix { _ in throw TestError() }.subscribe($0) },
                                    end: { _ in other.send(1) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryPrefix { _ in true }.subscribe(subscriber)
        #expect(upstream.subscriberDescription == "TryPrefixWhile")
        #expect(String(describing: subscriber.subscription!) == "TryPrefixWhile")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.eraseToAnyPublisher().tryPrefix { $0 < 20 } }
        try await PublisherContract.verify {
            (1...30).publisher.eraseToAnyPublisher().tryPrefix { value in
                if value == 7 { throw TestError() }
                return true
            }
        }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryPrefix { _ in true })
            == Publishers.TryPrefixWhile<PassthroughSubject<Int, Never>>.self)
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension TryPrefixWhileTests {
    @Test func aValueBeforeTheSubscriptionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.tryPrefix { _ in true } }
        }
    }

    @Test func aSubscriptionAfterACancelIsCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.tryPrefix { _ in true } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 1)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.tryPrefix { _ in true } } == ["downstream"])
    }
}
