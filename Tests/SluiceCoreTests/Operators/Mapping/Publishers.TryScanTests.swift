import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryScan")
struct TryScanTests {
    @Test func publishesEachRunningResult() {
        let subscriber = TestSubscriber<Int, any Error>()
        (1...3).publisher.eraseToAnyPublisher().tryScan(0, +).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(TryScan)", "value(1)", "value(3)", "value(6)", "finished"])
    }

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 8)).tryScan(0, +).subscribe(subscriber)
        #expect(recordedTestError(subscriber) == TestError(code: 8))
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryScan(0) { sum, value in
            if sum + value > 5 { throw TestError(code: sum + value) }
            return sum + value
        }.subscribe(subscriber)
        upstream.send(2)
        upstream.send(3)
        upstream.send(4)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [2, 5])
        #expect(subscriber.events.count == 4)
        #expect(recordedTestError(subscriber) == TestError(code: 9))
    }

    @Test func eachSubscriptionStartsFromTheInitialResult() {
        let scanned = (1...3).publisher.eraseToAnyPublisher().tryScan(10, +)
        let first = TestSubscriber<Int, any Error>()
        let second = TestSubscriber<Int, any Error>()
        scanned.subscribe(first)
        scanned.subscribe(second)
        #expect(first.values == [11, 13, 16])
        #expect(second.values == [11, 13, 16])
    }

    @Test func limitedDemandAndDemandBothWays() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        (1...3).publisher.eraseToAnyPublisher().tryScan(0, +).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 3, 6])
        #expect(subscriber.completion != nil)

        let upstream = ManualPublisher<Int, Never>()
        let other = TestSubscriber<Int, any Error>(initialDemand: .max(2), demandPerValue: .max(4))
        upstream.tryScan(0, +).subscribe(other)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(4))
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        upstream.tryScan(0, +).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(TryScan)", "value(1)"])
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.tryScan(0, +).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.tryScan(0, +).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.tryScan(0, +).subscribe(TestSubscriber<Int, any Error>())
        #expect(upstream.subscriberDescription == "TryScan")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...20).publisher.eraseToAnyPublisher().tryScan(0) { sum, value in
                if value == 15 { throw TestError() }
                return sum + value
            }
        }
    }

    @Test func type() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(Swift.type(of: subject.tryScan(0, +)) == Publishers.TryScan<PassthroughSubject<Int, Never>, Int>.self)
    }
}

extension TryScanTests {
    @Test func fusedOnJustAndResult() {
        var calls = 0
        let just = Just(5).tryScan(10) { sum, value -> Int in
            calls += 1
            return sum + value
        }
        #expect(calls == 1)
        #expect(Swift.type(of: just) == Result<Int, any Error>.Publisher.self)
        #expect(successValue(just) == 15)
        #expect(failureTestError(Just(5).tryScan(0) { _, _ -> Int in throw TestError(code: 3) }) == TestError(code: 3))

        let result = Result<Int, TestError>.Publisher(4).tryScan(1, *)
        #expect(Swift.type(of: result) == Result<Int, any Error>.Publisher.self)
        #expect(successValue(result) == 4)
        #expect(failureTestError(Result<Int, TestError>.Publisher(TestError(code: 8)).tryScan(1, *)) == TestError(code: 8))
        #expect(failureTestError(Result<Int, TestError>.Publisher(4).tryScan(1) { _, _ -> Int in throw TestError(code: 6) })
            == TestError(code: 6))
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension TryScanTests {
    @Test func eventsBeforeTheSubscriptionArePublished() {
        let outcome = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.tryScan(0) { $0 + $1 } }
        #expect(outcome.demand == .max(42))
        #expect(outcome.events == ["value(1)"])
    }

    @Test func aSubscriptionAfterACancelIsNeitherRequestedFromNorCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.tryScan(0) { $0 + $1 } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 0)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.tryScan(0) { $0 + $1 } } == ["downstream", "status", "result"])
    }
}
