import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryMap")
struct TryMapTests {
    @Test func transformsValuesAndFinishes() {
        let subscriber = TestSubscriber<Int, any Error>()
        (1...3).publisher.eraseToAnyPublisher().tryMap { $0 * 2 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(TryMap)", "value(2)", "value(4)", "value(6)", "finished",
        ])
    }

    @Test func upstreamFailurePassesThroughAsAnyError() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<String, any Error>()
        subject.tryMap { "#\($0)" }.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.values == ["#1"])
        #expect(recordedTestError(subscriber) == TestError(code: 4))
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryMap { value -> Int in
            if value == 2 { throw TestError(code: 2) }
            return value
        }.subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.send(2) == .none)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.events.count == 3)
        #expect(recordedTestError(subscriber) == TestError(code: 2))
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        (1...3).publisher.eraseToAnyPublisher().tryMap { $0 + 10 }.subscribe(subscriber)
        #expect(subscriber.values == [11])
        subscriber.request(.max(1))
        #expect(subscriber.values == [11, 12])
        subscriber.request(.max(1))
        #expect(subscriber.values == [11, 12, 13])
        #expect(subscriber.completion != nil)
    }

    @Test func demandPassesThroughBothWays() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.tryMap { $0 }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(3))
        subscriber.request(.max(4))
        #expect(upstream.subscription.requests == [.max(2), .max(4)])
    }

    @Test func cancellingCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryMap { $0 }.subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantRequestAndCancelFromReceive() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() } else { subscriber.request(.max(1)) }
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().tryMap { $0 }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.tryMap { $0 }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.tryMap { $0 }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.tryMap { _ -> Int in throw TestError() }.subscribe($0) },
                                    end: { _ in other.send(1) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryMap { $0 }.subscribe(subscriber)
        #expect(upstream.subscriberDescription == "TryMap")
        #expect(String(describing: subscriber.subscription!) == "TryMap")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...20).publisher.eraseToAnyPublisher().tryMap { $0 * 2 } }
        try await PublisherContract.verify {
            (1...20).publisher.eraseToAnyPublisher().tryMap { value -> Int in
                if value == 7 { throw TestError() }
                return value
            }
        }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Base = PassthroughSubject<Int, Never>
        #expect(type(of: subject.tryMap { $0 }) == Publishers.TryMap<Base, Int>.self)
        #expect(type(of: subject.map { $0 }.tryMap { "\($0)" }) == Publishers.TryMap<Base, String>.self)
        #expect(type(of: subject.tryMap { $0 }.map { "\($0)" }) == Publishers.TryMap<Base, String>.self)
        #expect(type(of: subject.tryMap { $0 }.tryMap { "\($0)" }) == Publishers.TryMap<Base, String>.self)
    }

    @Test func fusedTransformsApplyInOrderAndThrowFromEither() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        subject.map { $0 + 1 }.tryMap { $0 * 10 }.map { $0 - 1 }.tryMap { value -> Int in
            if value > 100 { throw TestError(code: value) }
            return value
        }.subscribe(subscriber)
        subject.send(1)
        subject.send(10)
        #expect(subscriber.values == [19])
        #expect(recordedTestError(subscriber) == TestError(code: 109))
    }
}

extension TryMapTests {
    @Test func fusedOnJustAndResultEvaluateAtOnce() {
        var calls = 0
        let just = Just(2).tryMap { value -> String in
            calls += 1
            return "#\(value)"
        }
        #expect(calls == 1)
        #expect(type(of: just) == Result<String, any Error>.Publisher.self)
        #expect(successValue(just) == "#2")
        #expect(failureTestError(Just(2).tryMap { _ -> Int in throw TestError(code: 5) }) == TestError(code: 5))

        let result = Result<Int, TestError>.Publisher(3).tryMap { $0 * 2 }
        #expect(type(of: result) == Result<Int, any Error>.Publisher.self)
        #expect(successValue(result) == 6)
        #expect(failureTestError(Result<Int, TestError>.Publisher(3).tryMap { _ -> Int in throw TestError(code: 1) })
            == TestError(code: 1))
        var failedCalls = 0
        let failed = Result<Int, TestError>.Publisher(TestError(code: 9)).tryMap { value -> Int in
            failedCalls += 1
            return value
        }
        #expect(failedCalls == 0)
        #expect(failureTestError(failed) == TestError(code: 9))
    }

    @Test func fusedResultPublishesThroughASubscription() {
        let subscriber = TestSubscriber<Int, any Error>()
        Just(1).tryMap { $0 + 1 }.subscribe(subscriber)
        #expect(subscriber.values == [2])
        #expect(subscriber.completion != nil)
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension TryMapTests {
    @Test func eventsBeforeTheSubscriptionArePublished() {
        let outcome = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.tryMap { $0 } }
        #expect(outcome.demand == .max(42))
        #expect(outcome.events == ["value(1)"])
    }

    @Test func aSubscriptionAfterACancelIsNeitherRequestedFromNorCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.tryMap { $0 } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 0)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.tryMap { $0 } } == [])
    }
}
