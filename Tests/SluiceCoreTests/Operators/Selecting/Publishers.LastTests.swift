import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Last")
struct LastTests {
    @Test func publishesLastAtFinish() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.last().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.values == [])
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 0)
        #expect(subscriber.eventDescriptions == ["subscription(Last)", "value(2)", "finished"])
    }

    @Test func emptyAndFailure() {
        let empty = TestSubscriber<Int, Never>()
        Empty<Int, Never>().last().subscribe(empty)
        #expect(empty.eventDescriptions == ["subscription(Last)", "finished"])
        let upstream = ManualPublisher<Int, TestError>()
        let failing = TestSubscriber<Int, TestError>()
        upstream.last().subscribe(failing)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(failing.eventDescriptions == ["subscription(Last)", "failure(TestError(code: 1))"])
    }

    @Test func waitsForDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        [1, 2].publisher.eraseToAnyPublisher().last().subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Last)", "value(2)", "finished"])
    }

    @Test func cancelStopsEverything() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.last().subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Last)"])
    }

    @Test func releasesSubscriber() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.last().subscribe(subscriber)
            subscriber.cancel()
        }
        upstream.detachAll()
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().last() }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.last()) == Publishers.Last<PassthroughSubject<Int, Never>>.self)
        #expect(Just(1).last() == Just(1))
        #expect(Result<Int, TestError>.Publisher(2).last().result == .success(2))
    }
}

extension LastTests {
    @Test func fusedOnOptionalAndBidirectionalSequence() {
        #expect(type(of: Optional(1).publisher.last()) == Optional<Int>.Publisher.self)
        #expect(Optional(1).publisher.last() == Optional(1).publisher)
        let sequence = [4, 5, 6].publisher.last()
        #expect(type(of: sequence) == Optional<Int>.Publisher.self)
        #expect(sequence == Optional(6).publisher)
        #expect([Int]().publisher.last() == Optional<Int>.none.publisher)
        #expect(type(of: stride(from: 0, to: 3, by: 1).publisher.last())
            == Publishers.Last<Publishers.Sequence<StrideTo<Int>, Never>>.self)
    }

    @Test func equatable() {
        let sequence = Publishers.Sequence<[Int], TestError>(sequence: [1, 2])
        #expect(sequence.last() == Publishers.Last(upstream: sequence))
        #expect(sequence.last() != Publishers.Last(upstream: Publishers.Sequence<[Int], TestError>(sequence: [2])))
    }
}
