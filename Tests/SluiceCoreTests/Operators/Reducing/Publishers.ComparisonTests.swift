import SluiceCore
import SluiceTesting
import Testing

private struct Item: Equatable, CustomStringConvertible {
    var key: Int
    var tag: String
    var description: String { "\(key)\(tag)" }
}

@Suite("Publishers.Comparison")
struct ComparisonTests {
    @Test func minAndMaxPublishAtFinish() {
        let subject = PassthroughSubject<Int, TestError>()
        let minimum = TestSubscriber<Int, TestError>()
        let maximum = TestSubscriber<Int, TestError>()
        subject.min().subscribe(minimum)
        subject.max().subscribe(maximum)
        for value in [3, -1, 7, 2] { subject.send(value) }
        #expect(minimum.values == [])
        subject.send(completion: .finished)
        #expect(minimum.eventDescriptions == ["subscription(Comparison)", "value(-1)", "finished"])
        #expect(maximum.eventDescriptions == ["subscription(Comparison)", "value(7)", "finished"])
    }

    @Test func byClosureKeepsTheFirstOfEqualElements() {
        let items = [Item(key: 1, tag: "a"), Item(key: 3, tag: "b"), Item(key: 1, tag: "c"), Item(key: 3, tag: "d")]
        let minimum = TestSubscriber<Item, Never>()
        let maximum = TestSubscriber<Item, Never>()
        items.publisher.eraseToAnyPublisher().min { $0.key < $1.key }.subscribe(minimum)
        items.publisher.eraseToAnyPublisher().max { $0.key < $1.key }.subscribe(maximum)
        // The same answers as the standard library's min(by:) / max(by:).
        #expect(minimum.values == [items.min { $0.key < $1.key }!])
        #expect(maximum.values == [items.max { $0.key < $1.key }!])
    }

    /// An empty upstream: just `.finished` — once the subscriber asks, as Apple's.
    @Test func emptyUpstreamJustFinishes() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Empty<Int, Never>().max().subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Comparison)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Comparison)", "finished"])
    }

    @Test func failurePassesThrough() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.min().subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.eventDescriptions == ["subscription(Comparison)", "failure(TestError(code: 4))"])
    }

    @Test func nothingBeforeDemandAndCancel() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        [4, 9, 1].publisher.eraseToAnyPublisher().max().subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [9])

        let upstream = ManualPublisher<Int, Never>()
        let cancelling = TestSubscriber<Int, Never>()
        upstream.min().subscribe(cancelling)
        #expect(upstream.subscriberDescription == "Comparison")
        cancelling.cancel()
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(cancelling.values == [])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { [5, 1, 9].publisher.eraseToAnyPublisher().min() }
        try await PublisherContract.verify { [5, 1, 9].publisher.eraseToAnyPublisher().max { $0 < $1 } }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.min()) == Publishers.Comparison<PassthroughSubject<Int, Never>>.self)
        #expect(type(of: subject.max { $0 < $1 }) == Publishers.Comparison<PassthroughSubject<Int, Never>>.self)
        let sequenceMin: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
        #expect(sequenceMin == Optional(1).publisher)
        #expect([3, 1, 2].publisher.max() == Optional(3).publisher)
        #expect([3, 1, 2].publisher.min { $0 > $1 } == Optional(3).publisher)
        #expect([Int]().publisher.max { $0 < $1 }.output == nil)
        #expect(Just(5).min() == Just(5))
        #expect(Just(5).max { $0 < $1 } == Just(5))
        #expect(Optional(5).publisher.max() == Optional(5).publisher)
        #expect(Optional(5).publisher.min { $0 < $1 } == Optional(5).publisher)
        #expect(Result<Int, TestError>.Publisher(5).min().result == .success(5))
        #expect(Result<Int, TestError>.Publisher(5).max { $0 < $1 }.result == .success(5))
    }
}
