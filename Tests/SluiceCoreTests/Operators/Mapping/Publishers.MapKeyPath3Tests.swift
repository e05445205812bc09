import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.MapKeyPath3")
struct MapKeyPath3Tests {
    @Test func publishesThreePropertiesAsATuple() {
        let subject = PassthroughSubject<KeyPathSample, TestError>()
        let subscriber = TestSubscriber<(Int, Int, String), TestError>(initialDemand: .max(1))
        subject.map(\.x, \.y, \.name).subscribe(subscriber)
        subject.send(KeyPathSample(x: 1, y: 2, name: "a"))
        subject.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.values.count == 1)
        #expect(subscriber.values.first.map { [$0.0, $0.1] } == [1, 2])
        #expect(subscriber.values.first?.2 == "a")
        #expect(subscriber.completion == .failure(TestError(code: 3)))
    }

    @Test func demandPassesThroughAndCancelReachesUpstream() {
        let upstream = ManualPublisher<KeyPathSample, Never>()
        let subscriber = TestSubscriber<(Int, Int, String), Never>(initialDemand: .max(2), demandPerValue: .max(1))
        upstream.map(\.x, \.y, \.name).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(KeyPathSample(x: 1, y: 2, name: "")) == .max(1))
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<KeyPathSample, Never>()
        #expect(!subscriberSurvives({ subject.map(\.x, \.y, \.name).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.map(\.x, \.y, \.name).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<KeyPathSample, Never>()
        upstream.map(\.x, \.y, \.name).subscribe(TestSubscriber<(Int, Int, String), Never>())
        #expect(upstream.subscriberDescription == "ValueForKeys")  // as in Combine
    }

    @Test func mirrorShowsTheKeyPathsAsInCombine() {
        let upstream = LatePublisher<KeyPathSample, Never>()
        upstream.map(\.x, \.y, \.name).subscribe(TestSubscriber<(Int, Int, String), Never>())
        #expect(upstream.subscriber.map { Mirror(reflecting: $0).children.map(\.label) } == ["keyPath0", "keyPath1", "keyPath2"])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...10).map { KeyPathSample(x: $0, y: -$0, name: "\($0)") }.publisher.eraseToAnyPublisher().map(\.x, \.y, \.name)
        }
    }

    @Test func typeAndProperties() {
        let subject = PassthroughSubject<KeyPathSample, Never>()
        let mapped = subject.map(\.x, \.y, \.name)
        #expect(type(of: mapped) == Publishers.MapKeyPath3<PassthroughSubject<KeyPathSample, Never>, Int, Int, String>.self)
        #expect(mapped.keyPath2 == \KeyPathSample.name)
    }
}
