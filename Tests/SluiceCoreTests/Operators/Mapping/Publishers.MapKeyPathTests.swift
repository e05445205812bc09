import SluiceCore
import SluiceTesting
import Testing

struct KeyPathSample: Equatable {
    var x: Int
    var y: Int
    var name: String
}

@Suite("Publishers.MapKeyPath")
struct MapKeyPathTests {
    @Test func publishesThePropertyAndPassesTheCompletion() {
        let subject = PassthroughSubject<KeyPathSample, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.map(\.x).subscribe(subscriber)
        subject.send(KeyPathSample(x: 1, y: 2, name: "a"))
        subject.send(KeyPathSample(x: 3, y: 4, name: "b"))
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(1)", "value(3)", "failure(TestError(code: 1))",
        ])
    }

    @Test func limitedDemandAndPassThroughDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        [KeyPathSample(x: 1, y: 0, name: ""), KeyPathSample(x: 2, y: 0, name: "")].publisher.eraseToAnyPublisher().map(\.x)
            .subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)

        let upstream = ManualPublisher<KeyPathSample, Never>()
        let other = TestSubscriber<String, Never>(initialDemand: .max(2), demandPerValue: .max(1))
        upstream.map(\.name).subscribe(other)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(KeyPathSample(x: 0, y: 0, name: "n")) == .max(1))
        #expect(other.subscription as? ManualPublisher<KeyPathSample, Never>.Subscription === upstream.subscription)
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<KeyPathSample, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        upstream.map(\.y).subscribe(subscriber)
        upstream.send(KeyPathSample(x: 0, y: 5, name: ""))
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [5])
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<KeyPathSample, Never>()
        #expect(!subscriberSurvives({ subject.map(\.x).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.map(\.x).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<KeyPathSample, Never>()
        upstream.map(\.x).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "ValueForKey")
    }

    @Test func mirrorShowsTheKeyPathsAsInCombine() {
        let upstream = LatePublisher<KeyPathSample, Never>()
        upstream.map(\.x).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriber.map { Mirror(reflecting: $0).children.map(\.label) } == ["keyPath"])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...10).map { KeyPathSample(x: $0, y: 0, name: "") }.publisher.eraseToAnyPublisher().map(\.x)
        }
    }

    @Test func typeAndProperties() {
        let subject = PassthroughSubject<KeyPathSample, Never>()
        let mapped = subject.map(\.name)
        #expect(type(of: mapped) == Publishers.MapKeyPath<PassthroughSubject<KeyPathSample, Never>, String>.self)
        #expect(mapped.keyPath == \KeyPathSample.name)
        #expect(mapped.upstream === subject)
    }
}
