import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Collect")
struct CollectTests {
    @Test func collectsEverythingIntoOneArrayAtFinish() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect().subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values == [])
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Collect)", "value([1, 2])", "finished"])
    }

    @Test func emptyUpstreamPublishesAnEmptyArray() {
        let subscriber = TestSubscriber<[Int], Never>()
        Empty<Int, Never>().collect().subscribe(subscriber)
        #expect(subscriber.values == [[]])
        #expect(subscriber.completion == .finished)
    }

    @Test func failureDiscardsTheElements() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect().subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 2)))
        #expect(subscriber.eventDescriptions == ["subscription(Collect)", "failure(TestError(code: 2))"])
    }

    /// Apple's mirror of `Collect`'s subscription has one child: the number collected so far.
    @Test func descriptionAndMirrorCountTheElements() throws {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
        upstream.collect().subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Collect")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
            == "Collect")
        func children() -> [String] {
            Mirror(reflecting: subscription).children.map { "\($0.label ?? "nil"): \($0.value)" }
        }
        #expect(children() == ["count: 0"])
        upstream.send(7)
        upstream.send(8)
        #expect(children() == ["count: 2"])
    }

    @Test func waitsForDemandEvenAfterTheUpstreamFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
        upstream.collect().subscribe(subscriber)
        // As Apple's: everything is requested upstream at once, whatever the subscriber asks.
        #expect(upstream.subscription.requests == [.unlimited])
        subscriber.request(.max(1))
        #expect(upstream.subscription.requests == [.unlimited])
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [[1]])
        #expect(subscriber.completion == .finished)

        let later = TestSubscriber<[Int], Never>(initialDemand: .none)
        [1, 2, 3].publisher.eraseToAnyPublisher().collect().subscribe(later)
        #expect(later.values == [])
        later.request(.max(1))
        #expect(later.values == [[1, 2, 3]])
        #expect(later.completion == .finished)
    }

    @Test func cancelCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        upstream.collect().subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Collect)"])
    }

    @Test func releasesTheSubscriberOnCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<[Int], Never>?
        do {
            let subscriber = TestSubscriber<[Int], Never>()
            weakSubscriber = subscriber
            subject.collect().subscribe(subscriber)
        }
        #expect(weakSubscriber != nil)
        subject.send(completion: .finished)
        #expect(weakSubscriber == nil)
    }

    @Test func theUpstreamSeesASubscriberNamedCollect() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.collect().subscribe(TestSubscriber<[Int], Never>())
        #expect(upstream.subscriberDescription == "Collect")
    }

    @Test func optionalCollectOfNothingIsAnEmptyArray() {
        // As Apple's: a `nil` optional publisher collects into `[]`.
        #expect(Optional<Int>.none.publisher.collect() == Optional([]).publisher)
        #expect(Optional(3).publisher.collect() == Optional([3]).publisher)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().collect() }
        try await PublisherContract.verify { Fail<Int, TestError>(error: TestError()).collect() }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.collect()) == Publishers.Collect<PassthroughSubject<Int, Never>>.self)
        #expect(Just(1).collect() == Just([1]))
        let sequence: Result<[Int], Never>.Publisher = [1, 2].publisher.collect()
        #expect(sequence.result == .success([1, 2]))
        #expect(Optional(3).publisher.collect() == Optional([3]).publisher)
        #expect(Optional<Int>.none.publisher.collect().output == [])
        #expect(Result<Int, TestError>.Publisher(4).collect().result == .success([4]))
        #expect(Result<Int, TestError>.Publisher(TestError()).collect().result == .failure(TestError()))
    }
}
