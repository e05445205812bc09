import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Reduce")
struct ReduceTests {
    @Test func accumulatesAndPublishesAtFinish() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<String, TestError>()
        subject.reduce("") { $0 + String($1) }.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values == [])
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Reduce)", "value(12)", "finished"])
    }

    @Test func emptyUpstreamPublishesTheInitialResult() {
        let subscriber = TestSubscriber<Int, Never>()
        Empty<Int, Never>().reduce(7, +).subscribe(subscriber)
        #expect(subscriber.values == [7])
        #expect(subscriber.completion == .finished)
    }

    @Test func failurePassesThrough() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.reduce(0, +).subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 5)))
        #expect(subscriber.eventDescriptions == ["subscription(Reduce)", "failure(TestError(code: 5))"])
    }

    @Test func nothingBeforeDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        (1...4).publisher.eraseToAnyPublisher().reduce(0, +).subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [10])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.reduce(0, +).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.unlimited])
        subscriber.cancel()
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [])
        #expect(upstream.subscriberDescription == "Reduce")
    }

    /// Apple's reduce-like mirror, whose `initial` child is the initial result.
    @Test func mirrorShowsTheInitialResult() throws {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.reduce(42, +).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        let children = Array(Mirror(reflecting: subscription).children)
        #expect(children.map(\.label) == ["downstream", "result", "initial", "status"])
        #expect(String(describing: children[2].value) == "Optional(42)")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
            == "Reduce")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().reduce(0, +) }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        let reduced = subject.reduce(1, *)
        #expect(type(of: reduced) == Publishers.Reduce<PassthroughSubject<Int, Never>, Int>.self)
        #expect(reduced.initial == 1)
        let sequence: Result<Int, Never>.Publisher = [1, 2, 3].publisher.reduce(0, +)
        #expect(sequence.result == .success(6))
        let just: Result<Int, Never>.Publisher = Just(2).reduce(10, +)
        #expect(just.result == .success(12))
        #expect(Optional(2).publisher.reduce(10, +) == Optional(12).publisher)
        #expect(Optional<Int>.none.publisher.reduce(10, +).output == nil)
        #expect(Result<Int, TestError>.Publisher(3).reduce(1, +).result == .success(4))
        #expect(Result<Int, TestError>.Publisher(TestError()).reduce(1, +).result == .failure(TestError()))
    }
}
