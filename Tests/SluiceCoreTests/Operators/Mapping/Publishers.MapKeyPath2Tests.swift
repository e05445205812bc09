import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.MapKeyPath2")
struct MapKeyPath2Tests {
    @Test func publishesBothPropertiesAsATuple() {
        let subject = PassthroughSubject<KeyPathSample, TestError>()
        let subscriber = TestSubscriber<(Int, String), TestError>(initialDemand: .max(1))
        subject.map(\.x, \.name).subscribe(subscriber)
        subject.send(KeyPathSample(x: 1, y: 2, name: "a"))
        subscriber.request(.max(1))
        subject.send(KeyPathSample(x: 3, y: 4, name: "b"))
        subject.send(completion: .finished)
        #expect(subscriber.values.map(\.0) == [1, 3])
        #expect(subscriber.values.map(\.1) == ["a", "b"])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandPassesThroughAndCancelReachesUpstream() {
        let upstream = ManualPublisher<KeyPathSample, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(2), demandPerValue: .max(1))
        upstream.map(\.x, \.y).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(KeyPathSample(x: 1, y: 2, name: "")) == .max(1))
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<KeyPathSample, Never>()
        #expect(!subscriberSurvives({ subject.map(\.x, \.y).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.map(\.x, \.y).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<KeyPathSample, Never>()
        upstream.map(\.x, \.y).subscribe(TestSubscriber<(Int, Int), Never>())
        #expect(upstream.subscriberDescription == "ValueForKeys")  // as in Combine
    }

    @Test func mirrorShowsTheKeyPathsAsInCombine() {
        let upstream = LatePublisher<KeyPathSample, Never>()
        upstream.map(\.x, \.y).subscribe(TestSubscriber<(Int, Int), Never>())
        #expect(upstream.subscriber.map { Mirror(reflecting: $0).children.map(\.label) } == ["keyPath0", "keyPath1"])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...10).map { KeyPathSample(x: $0, y: -$0, name: "") }.publisher.eraseToAnyPublisher().map(\.x, \.y)
        }
    }

    @Test func typeAndProperties() {
        let subject = PassthroughSubject<KeyPathSample, Never>()
        let mapped = subject.map(\.x, \.name)
        #expect(type(of: mapped) == Publishers.MapKeyPath2<PassthroughSubject<KeyPathSample, Never>, Int, String>.self)
        #expect(mapped.keyPath0 == \KeyPathSample.x)
        #expect(mapped.keyPath1 == \KeyPathSample.name)
    }
}
