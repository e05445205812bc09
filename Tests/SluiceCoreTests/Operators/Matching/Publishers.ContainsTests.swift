import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Contains")
struct ContainsTests {
    @Test func matchPublishesTrueCancelsUpstreamAndFinishesOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        upstream.contains(2).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.unlimited])
        upstream.send(1)
        #expect(subscriber.values == [])
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Contains)", "value(true)", "finished"])
    }

    @Test func noMatchPublishesFalseAtFinish() {
        let subscriber = TestSubscriber<Bool, Never>()
        [1, 3].publisher.eraseToAnyPublisher().contains(2).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Contains)", "value(false)", "finished"])
    }

    @Test func failurePassesThrough() {
        let subscriber = TestSubscriber<Bool, TestError>()
        Fail<Int, TestError>(error: TestError(code: 6)).contains(1).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Contains)", "failure(TestError(code: 6))"])
    }

    @Test func earlyAnswerWaitsForDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>(initialDemand: .none)
        subject.contains(1).subscribe(subscriber)
        subject.send(1)  // no demand yet: the subject drops it
        subscriber.request(.max(1))
        subject.send(1)
        #expect(subscriber.values == [true])
        #expect(subscriber.completion == .finished)

        let upstream = ManualPublisher<Int, Never>()
        let waiting = TestSubscriber<Bool, Never>(initialDemand: .none)
        upstream.contains(1).subscribe(waiting)
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(waiting.values == [])
        waiting.request(.max(1))
        #expect(waiting.eventDescriptions == ["subscription(Contains)", "value(true)", "finished"])
    }

    @Test func cancelStopsEverything() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        upstream.contains(1).subscribe(subscriber)
        subscriber.cancel()
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Contains)"])
        #expect(upstream.subscriberDescription == "Contains")
    }

    @Test func releasesTheSubscriberAfterAnEarlyAnswer() {
        let upstream = ManualPublisher<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Bool, Never>?
        do {
            let subscriber = TestSubscriber<Bool, Never>()
            weakSubscriber = subscriber
            upstream.contains(1).subscribe(subscriber)
        }
        upstream.send(1)
        upstream.detachAll()
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().contains(3) }
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().contains(9) }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        let contains = subject.contains(4)
        #expect(type(of: contains) == Publishers.Contains<PassthroughSubject<Int, Never>>.self)
        #expect(contains.output == 4)
        #expect(Publishers.Contains(upstream: Just(1), output: 1) == Publishers.Contains(upstream: Just(1), output: 1))
        #expect(Publishers.Contains(upstream: Just(1), output: 1) != Publishers.Contains(upstream: Just(1), output: 2))
        let sequence: Result<Bool, Never>.Publisher = [1, 2].publisher.contains(2)
        #expect(sequence.result == .success(true))
        let just: Just<Bool> = Just(1).contains(2)
        #expect(just == Just(false))
        #expect(Optional(1).publisher.contains(1) == Optional(true).publisher)
        #expect(Optional<Int>.none.publisher.contains(1).output == nil)
        #expect(Result<Int, TestError>.Publisher(1).contains(1).result == .success(true))
    }
}
