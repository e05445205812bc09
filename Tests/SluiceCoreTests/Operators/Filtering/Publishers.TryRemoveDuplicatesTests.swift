import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryRemoveDuplicates")
struct TryRemoveDuplicatesTests {
    @Test func removesConsecutiveDuplicatesAndFinishes() {
        let subscriber = TestSubscriber<Int, any Error>()
        [1, 1, 2, 2, 1].publisher.eraseToAnyPublisher().tryRemoveDuplicates(by: ==).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(TryRemoveDuplicates)", "value(1)", "value(2)", "value(1)", "finished",
        ])
    }

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 6)).tryRemoveDuplicates(by: ==).subscribe(subscriber)
        #expect(recordedTestError(subscriber) == TestError(code: 6))
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryRemoveDuplicates { previous, current in
            if current == 3 { throw TestError(code: previous) }
            return previous == current
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.events.count == 4)
        #expect(recordedTestError(subscriber) == TestError(code: 2))
    }

    @Test func thePredicateIsNotCalledForTheFirstElement() {
        var calls = 0
        let subscriber = TestSubscriber<Int, any Error>()
        [5].publisher.eraseToAnyPublisher().tryRemoveDuplicates { _, _ in
            calls += 1
            throw TestError()
        }.subscribe(subscriber)
        #expect(calls == 0)
        #expect(subscriber.values == [5])
        #expect(subscriber.completion != nil && recordedTestError(subscriber) == nil)
    }

    @Test func limitedDemandGetsEveryDistinctValue() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        [1, 1, 2, 2, 3].publisher.eraseToAnyPublisher().tryRemoveDuplicates(by: ==).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion != nil)
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        upstream.tryRemoveDuplicates(by: ==).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.tryRemoveDuplicates(by: ==).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.tryRemoveDuplicates(by: ==).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.tryRemoveDuplicates(by: ==).subscribe(TestSubscriber<Int, any Error>())
        #expect(upstream.subscriberDescription == "TryRemoveDuplicates")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).map { $0 / 3 }.publisher.eraseToAnyPublisher().tryRemoveDuplicates(by: ==)
        }
    }

    @Test func type() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(Swift.type(of: subject.tryRemoveDuplicates(by: ==))
            == Publishers.TryRemoveDuplicates<PassthroughSubject<Int, Never>>.self)
    }
}

extension TryRemoveDuplicatesTests {
    @Test func fusedOnJustAndResult() {
        var calls = 0
        let throwing: (Int, Int) throws -> Bool = { _, _ in
            calls += 1
            throw TestError()
        }
        // As Apple's: the closure is called once, with the output twice; a throw fails.
        let just = Just(1).tryRemoveDuplicates(by: throwing)
        #expect(Swift.type(of: just) == Result<Int, any Error>.Publisher.self)
        #expect(failureTestError(just) == TestError())
        #expect(successValue(Just(1).tryRemoveDuplicates { $0 == $1 }) == 1)
        let result = Result<Int, TestError>.Publisher(2).tryRemoveDuplicates(by: throwing)
        #expect(Swift.type(of: result) == Result<Int, any Error>.Publisher.self)
        #expect(failureTestError(result) == TestError())
        #expect(successValue(Result<Int, TestError>.Publisher(2).tryRemoveDuplicates { $0 == $1 }) == 2)
        #expect(failureTestError(Result<Int, TestError>.Publisher(TestError(code: 3)).tryRemoveDuplicates(by: throwing))
            == TestError(code: 3))
        #expect(calls == 2)
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension TryRemoveDuplicatesTests {
    @Test func aValueBeforeTheSubscriptionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.tryRemoveDuplicates { $0 == $1 } }
        }
    }

    @Test func aSubscriptionAfterACancelIsCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.tryRemoveDuplicates { $0 == $1 } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 1)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.tryRemoveDuplicates { $0 == $1 } } == ["downstream", "last"])
    }
}
