import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.First")
struct FirstTests {
    @Test func publishesFirstCancelsUpstreamAndFinishesOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.first().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(First)", "value(1)", "finished"])
    }

    @Test func emptyAndFailure() {
        let empty = TestSubscriber<Int, Never>()
        Empty<Int, Never>().first().subscribe(empty)
        #expect(empty.eventDescriptions == ["subscription(First)", "finished"])
        let failing = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 1)).first().subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(First)", "failure(TestError(code: 1))"])
    }

    @Test func waitsForDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        [1, 2].publisher.eraseToAnyPublisher().first().subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(First)", "value(1)", "finished"])
    }

    @Test func cancelStopsEverything() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.first().subscribe(subscriber)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(1)
        #expect(subscriber.eventDescriptions == ["subscription(First)"])
    }

    @Test func reentrantCancelInsideReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, me in
            me.cancel()
            return .none
        }
        [1, 2].publisher.eraseToAnyPublisher().first().subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(First)", "value(1)"])
    }

    @Test func releasesSubscriber() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.first().subscribe(subscriber)
            upstream.send(1)
        }
        upstream.detachAll()
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().first() }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.first()) == Publishers.First<PassthroughSubject<Int, Never>>.self)
        #expect(Just(1).first() == Just(1))
        #expect(Result<Int, TestError>.Publisher(2).first().result == .success(2))
    }
}

extension FirstTests {
    @Test func fusedOnOptionalAndCollectionSequence() {
        #expect(type(of: Optional(1).publisher.first()) == Optional<Int>.Publisher.self)
        #expect(Optional(1).publisher.first() == Optional(1).publisher)
        #expect(Optional<Int>.none.publisher.first() == Optional<Int>.none.publisher)
        let sequence = [4, 5, 6].publisher.first()
        #expect(type(of: sequence) == Optional<Int>.Publisher.self)
        #expect(sequence == Optional(4).publisher)
        #expect([Int]().publisher.first() == Optional<Int>.none.publisher)
        // A plain `Sequence` that is not a collection keeps the operator.
        #expect(type(of: stride(from: 0, to: 3, by: 1).publisher.first())
            == Publishers.First<Publishers.Sequence<StrideTo<Int>, Never>>.self)
    }

    @Test func equatable() {
        let sequence = Publishers.Sequence<[Int], TestError>(sequence: [1, 2])
        #expect(sequence.first() == Publishers.First(upstream: sequence))
        #expect(sequence.first() != Publishers.First(upstream: Publishers.Sequence<[Int], TestError>(sequence: [2])))
    }
}
