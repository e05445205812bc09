import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Count")
struct CountTests {
    @Test func countsAndPublishesAtFinish() {
        let subject = PassthroughSubject<String, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.count().subscribe(subscriber)
        subject.send("a")
        subject.send("b")
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Count)", "value(2)", "finished"])
    }

    @Test func emptyCountsZeroAndFailurePassesThrough() {
        let empty = TestSubscriber<Int, Never>()
        Empty<Int, Never>().count().subscribe(empty)
        #expect(empty.values == [0])
        let failing = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 3)).count().subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(Count)", "failure(TestError(code: 3))"])
    }

    @Test func nothingBeforeDemandAndCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.count().subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1])
        #expect(upstream.subscriberDescription == "Count")

        let other = ManualPublisher<Int, Never>()
        let cancelling = TestSubscriber<Int, Never>()
        other.count().subscribe(cancelling)
        cancelling.cancel()
        other.send(completion: .finished)
        #expect(other.subscription.cancelCount == 1)
        #expect(cancelling.eventDescriptions == ["subscription(Count)"])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().count() }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.count()) == Publishers.Count<PassthroughSubject<Int, Never>>.self)
        let array: Just<Int> = [1, 2, 3].publisher.count()
        #expect(array == Just(3))
        let set: Result<Int, Never>.Publisher = Set([1, 2]).publisher.count()
        #expect(set.result == .success(2))
        let failable: Result<Int, TestError>.Publisher = Publishers.Sequence<[Int], TestError>(sequence: [1]).count()
        #expect(failable.result == .success(1))
        #expect(Just("x").count() == Just(1))
        #expect(Optional("x").publisher.count() == Optional(1).publisher)
        #expect(Optional<String>.none.publisher.count().output == nil)
        #expect(Result<String, TestError>.Publisher("x").count().result == .success(1))
    }
}
