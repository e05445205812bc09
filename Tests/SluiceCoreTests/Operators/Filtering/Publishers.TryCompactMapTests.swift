import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryCompactMap")
struct TryCompactMapTests {
    @Test func publishesNonNilResultsAndFinishes() {
        let subscriber = TestSubscriber<Int, any Error>()
        ["1", "x", "3"].publisher.eraseToAnyPublisher().tryCompactMap { Int($0) }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(TryCompactMap)", "value(1)", "value(3)", "finished"])
    }

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 5)).tryCompactMap { $0 }.subscribe(subscriber)
        #expect(recordedTestError(subscriber) == TestError(code: 5))
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryCompactMap { value -> Int? in
            if value == 3 { throw TestError(code: 3) }
            return value == 2 ? nil : value
        }.subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.send(2) == .max(1))
        upstream.send(3)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.events.count == 3)
        #expect(recordedTestError(subscriber) == TestError(code: 3))
    }

    @Test func limitedDemandGetsEveryNonNilResult() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        (1...9).publisher.eraseToAnyPublisher().tryCompactMap { $0.isMultiple(of: 4) ? $0 : nil }
            .subscribe(subscriber)
        #expect(subscriber.values == [4])
        subscriber.request(.max(1))
        #expect(subscriber.values == [4, 8])
        subscriber.request(.max(1))
        #expect(subscriber.completion != nil)
    }

    @Test func cancellingCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryCompactMap { $0 }.subscribe(subscriber)
        subscriber.cancel()
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.events.count == 1)
    }

    @Test func reentrantRequestFromReceive() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        (1...6).publisher.eraseToAnyPublisher().tryCompactMap { $0.isMultiple(of: 2) ? $0 : nil }
            .subscribe(subscriber)
        #expect(subscriber.values == [2, 4, 6])
        #expect(subscriber.completion != nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.tryCompactMap { $0 }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.tryCompactMap { $0 }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.tryCompactMap { $0 }.subscribe(TestSubscriber<Int, any Error>())
        #expect(upstream.subscriberDescription == "TryCompactMap")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.eraseToAnyPublisher().tryCompactMap { value -> Int? in
                if value == 25 { throw TestError() }
                return value.isMultiple(of: 2) ? value : nil
            }
        }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Base = PassthroughSubject<Int, Never>
        #expect(type(of: subject.tryCompactMap { Int?($0) }) == Publishers.TryCompactMap<Base, Int>.self)
        let fused = subject.tryCompactMap { Int?($0) }.compactMap { (value: Int) throws -> String? in "\(value)" }
        #expect(type(of: fused) == Publishers.TryCompactMap<Base, String>.self)
    }

    @Test func fusedCompactMapAppliesBothAndMayThrow() {
        let subscriber = TestSubscriber<String, any Error>()
        (1...6).publisher.eraseToAnyPublisher()
            .tryCompactMap { (value: Int) -> Int? in value.isMultiple(of: 2) ? value : nil }
            .compactMap { (value: Int) throws -> String? in
                if value == 6 { throw TestError(code: 6) }
                return value == 2 ? nil : "#\(value)"
            }
            .subscribe(subscriber)
        #expect(subscriber.values == ["#4"])
        #expect(recordedTestError(subscriber) == TestError(code: 6))
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension TryCompactMapTests {
    @Test func aValueBeforeTheSubscriptionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.tryCompactMap { $0 } }
        }
    }

    @Test func aSubscriptionAfterACancelIsCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.tryCompactMap { $0 } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 1)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.tryCompactMap { $0 } } == ["downstream"])
    }
}
