import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.RemoveDuplicates")
struct RemoveDuplicatesTests {
    @Test func removesConsecutiveDuplicates() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.removeDuplicates().subscribe(subscriber)
        for value in [1, 1, 2, 2, 2, 1, 3, 3] { subject.send(value) }
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.eventDescriptions == [
            "subscription(RemoveDuplicates)", "value(1)", "value(2)", "value(1)", "value(3)",
            "failure(TestError(code: 1))",
        ])
    }

    @Test func predicateComparesWithThePreviousElementReceived() {
        // Each element, dropped or not, is the one the next is compared with.
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2, 3, 4, 10, 11].publisher.eraseToAnyPublisher().removeDuplicates { abs($0 - $1) < 2 }
            .subscribe(subscriber)
        #expect(subscriber.values == [1, 10])
        #expect(subscriber.completion == .finished)
    }

    @Test func duplicatesAreReplacedSoLimitedDemandGetsEveryDistinctValue() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 1, 1, 2, 2, 3].publisher.eraseToAnyPublisher().removeDuplicates().subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandPassesThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.removeDuplicates().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(3))
        #expect(upstream.send(1) == .max(1))
        // As in Combine, the operator has a subscription of its own.
        #expect(String(describing: subscriber.subscription!) == "RemoveDuplicates")
        subscriber.request(.max(4))
        #expect(upstream.subscription.requests == [.max(2), .max(4)])
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func eachSubscriptionHasItsOwnPreviousElement() {
        let deduplicated = [1, 1, 2].publisher.eraseToAnyPublisher().removeDuplicates()
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        deduplicated.subscribe(first)
        deduplicated.subscribe(second)
        #expect(first.values == [1, 2])
        #expect(second.values == [1, 2])
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        upstream.removeDuplicates().subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1, 2])
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.removeDuplicates().subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.removeDuplicates().subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.removeDuplicates().subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "RemoveDuplicates")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).map { $0 / 3 }.publisher.eraseToAnyPublisher().removeDuplicates()
        }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Expected = Publishers.RemoveDuplicates<PassthroughSubject<Int, Never>>
        #expect(type(of: subject.removeDuplicates()) == Expected.self)
        #expect(type(of: subject.removeDuplicates(by: <)) == Expected.self)
    }
}

extension RemoveDuplicatesTests {
    @Test func fusedOnJustOptionalResultAndSequence() {
        var calls = 0
        let never: (Int, Int) -> Bool = { _, _ in
            calls += 1
            return true
        }
        #expect(type(of: Just(1).removeDuplicates()) == Just<Int>.self)
        #expect(Just(1).removeDuplicates(by: never) == Just(1))
        #expect(Optional(2).publisher.removeDuplicates() == Optional(2).publisher)
        #expect(type(of: Optional(2).publisher.removeDuplicates(by: never)) == Optional<Int>.Publisher.self)
        #expect(Optional(2).publisher.removeDuplicates(by: never) == Optional(2).publisher)
        #expect(Result<Int, TestError>.Publisher(3).removeDuplicates() == Result<Int, TestError>.Publisher(3))
        #expect(type(of: Result<Int, TestError>.Publisher(3).removeDuplicates(by: never))
            == Result<Int, TestError>.Publisher.self)
        #expect(calls == 0)

        let sequence = [1, 1, 2, 2, 2, 1, 3, 3].publisher.removeDuplicates()
        #expect(type(of: sequence) == Publishers.Sequence<[Int], Never>.self)
        #expect(sequence.sequence == [1, 2, 1, 3])
        #expect([Int]().publisher.removeDuplicates().sequence == [])
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension RemoveDuplicatesTests {
    @Test func aValueBeforeTheSubscriptionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.removeDuplicates() }
        }
    }

    @Test func aSubscriptionAfterACancelIsCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.removeDuplicates() }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 1)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.removeDuplicates() } == ["downstream", "last"])
    }
}
