import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.SetFailureType")
struct SetFailureTypeTests {
    @Test func passesValuesAndFinishes() {
        let subscriber = TestSubscriber<Int, TestError>()
        (1...3).publisher.eraseToAnyPublisher().setFailureType(to: TestError.self).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandPassesStraightThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.setFailureType(to: TestError.self).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.send(1) == .max(2))
        #expect(subscriber.subscription as? ManualPublisher<Int, Never>.Subscription === upstream.subscription)
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        (1...3).publisher.eraseToAnyPublisher().setFailureType(to: TestError.self).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        upstream.setFailureType(to: TestError.self).subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.setFailureType(to: TestError.self).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.setFailureType(to: TestError.self).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.setFailureType(to: TestError.self).subscribe(TestSubscriber<Int, TestError>())
        #expect(upstream.subscriberDescription == "SetFailureType")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...10).publisher.eraseToAnyPublisher().setFailureType(to: TestError.self) }
    }

    @Test func typesFusionAndEquality() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Base = PassthroughSubject<Int, Never>
        #expect(type(of: subject.setFailureType(to: TestError.self))
            == Publishers.SetFailureType<Base, TestError>.self)
        let twice = subject.setFailureType(to: TestError.self).setFailureType(to: (any Error).self)
        #expect(type(of: twice) == Publishers.SetFailureType<Base, any Error>.self)
        #expect(twice.upstream === subject)
        let fromEmpty = Publishers.SetFailureType<Empty<Int, Never>, TestError>(upstream: Empty())
        #expect(fromEmpty == Publishers.SetFailureType(upstream: Empty()))
    }
}

extension SetFailureTypeTests {
    @Test func fusedOnJustResultAndSequence() {
        let just = Just(1).setFailureType(to: TestError.self)
        #expect(type(of: just) == Result<Int, TestError>.Publisher.self)
        #expect(just.result == .success(1))

        let result = Result<Int, Never>.Publisher(2).setFailureType(to: TestError.self)
        #expect(type(of: result) == Result<Int, TestError>.Publisher.self)
        #expect(result.result == .success(2))

        let sequence = [1, 2].publisher.setFailureType(to: TestError.self)
        #expect(type(of: sequence) == Publishers.Sequence<[Int], TestError>.self)
        #expect(sequence.sequence == [1, 2])
        let failing = Publishers.Sequence<[Int], TestError>(sequence: [3]).setFailureType(to: Never.self)
        #expect(type(of: failing) == Publishers.Sequence<[Int], Never>.self)

        let subscriber = TestSubscriber<Int, TestError>()
        sequence.subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension SetFailureTypeTests {
    @Test func theSubscriberPutUpstreamHasAnEmptyMirror() {
        let upstream = LatePublisher<Int, Never>()
        upstream.setFailureType(to: TestError.self).subscribe(TestSubscriber())
        #expect(upstream.subscriber.map { Mirror(reflecting: $0).children.isEmpty } == true)
    }
}
