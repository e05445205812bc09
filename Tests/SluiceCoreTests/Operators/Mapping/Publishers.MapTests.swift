import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Map")
struct MapTests {
    @Test func transformsValuesAndPassesTheCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<String, TestError>()
        subject.map { "#\($0)" }.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(#1)", "value(#2)", "failure(TestError(code: 4))",
        ])
    }

    @Test func finishesWithTheUpstream() {
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.Map(upstream: Publishers.Sequence<ClosedRange<Int>, Never>(sequence: 1...3)) { $0 * 10 }
            .subscribe(subscriber)
        #expect(subscriber.values == [10, 20, 30])
        #expect(subscriber.completion == .finished)
    }

    @Test func callsTheTransformOncePerValue() {
        var calls = 0
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2, 3].publisher.eraseToAnyPublisher().map { value -> Int in
            calls += 1
            return value
        }.subscribe(subscriber)
        #expect(calls == 3)
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().map { $0 * 2 }.subscribe(subscriber)
        #expect(subscriber.values == [2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 4])
        subscriber.request(.max(2))
        #expect(subscriber.values == [2, 4, 6, 8])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 4, 6, 8, 10])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandPassesStraightThroughBothWays() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.map { $0 + 1 }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(3))
        subscriber.request(.max(4))
        #expect(upstream.subscription.requests == [.max(2), .max(4)])
        #expect(subscriber.values == [2])
    }

    @Test func theSubscriberGetsTheUpstreamSubscription() {
        // Map is pass-through: it adds no subscription of its own.
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.map { $0 }.subscribe(subscriber)
        #expect(subscriber.subscription as? ManualPublisher<Int, Never>.Subscription === upstream.subscription)
    }

    @Test func cancellingCancelsUpstreamAndStopsValues() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.map { $0 * 2 }.subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        subject.send(2)
        subject.send(completion: .finished)
        #expect(subscriber.values == [2])
        #expect(subscriber.completion == nil)

        let upstream = ManualPublisher<Int, Never>()
        let other = TestSubscriber<Int, Never>()
        upstream.map { $0 }.subscribe(other)
        other.cancel()
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func cancelFromInsideReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 20 { subscriber.cancel() }
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().map { $0 * 10 }.subscribe(subscriber)
        #expect(subscriber.values == [10, 20])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriberOnCancelAndCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.map { $0 }.subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(weakSubscriber == nil)
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.map { $0 }.subscribe(subscriber)
        }
        #expect(weakSubscriber != nil)
        subject.send(completion: .finished)
        #expect(weakSubscriber == nil)
    }

    @Test func theUpstreamSeesASubscriberNamedMap() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.map { $0 }.subscribe(TestSubscriber<Int, Never>())
        upstream.map { $0 }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "Map")
        let identifiers = upstream.subscriberIdentifiers
        #expect(identifiers.count == 2)
        #expect(identifiers[0] != identifiers[1])
    }

    @Test func innerMirrorAndPlaygroundDescription() {
        let upstream = RecordingPublisher<Int>()
        upstream.map { $0 }.subscribe(TestSubscriber<Int, Never>())
        let inner = upstream.subscriber!
        #expect((inner as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Map")
        #expect(Mirror(reflecting: inner).children.isEmpty)  // as in Combine
    }

    // MARK: Types

    @Test func mapReturnsAMapOfTheUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        let mapped = subject.map { String($0) }
        #expect(type(of: mapped) == Publishers.Map<PassthroughSubject<Int, Never>, String>.self)
        #expect(mapped.upstream === subject)
    }

    @Test func mapOfAMapIsFusedIntoOneMap() {
        let subject = PassthroughSubject<Int, Never>()
        let fused = subject.map { $0 + 1 }.map { $0 * 10 }.map { "\($0)" }
        #expect(type(of: fused) == Publishers.Map<PassthroughSubject<Int, Never>, String>.self)
        let subscriber = TestSubscriber<String, Never>()
        fused.subscribe(subscriber)
        subject.send(1)
        #expect(subscriber.values == ["20"])  // (1 + 1) * 10: the transforms apply in order
    }
}

/// A never-completing publisher that keeps its (erased) subscriber, to inspect what an operator
/// puts upstream.
final class RecordingPublisher<Output>: Publisher, @unchecked Sendable {
    typealias Failure = Never
    private(set) var subscriber: Any?
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        self.subscriber = subscriber
        subscriber.receive(subscription: Subscriptions.empty)
    }
}

@Suite("Publisher.replaceNil")
struct ReplaceNilTests {
    @Test func replacesNilAndIsAMap() {
        let subject = PassthroughSubject<Int?, TestError>()
        let replaced = subject.replaceNil(with: 0)
        #expect(type(of: replaced) == Publishers.Map<PassthroughSubject<Int?, TestError>, Int>.self)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        replaced.subscribe(subscriber)
        subject.send(nil)
        subscriber.request(.max(2))
        subject.send(2)
        subject.send(nil)
        subject.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(0)", "value(2)", "value(0)", "failure(TestError(code: 3))",
        ])
    }

    @Test func description() {
        let upstream = ManualPublisher<Int?, Never>()
        upstream.replaceNil(with: 1).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "Map")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { [1, nil, 3].publisher.eraseToAnyPublisher().replaceNil(with: 0) }
    }
}

extension MapTests {
    @Test func fusedReplaceNilOnSequenceKeepsTheOptionalElementType() {
        let replaced = [1, nil, 3].publisher.replaceNil(with: 0)
        // Combine's overload keeps `[T?]`: every element is non-nil.
        #expect(type(of: replaced) == Publishers.Sequence<[Int?], Never>.self)
        #expect(replaced.sequence == [1, 0, 3])
        let subscriber = TestSubscriber<Int?, Never>()
        replaced.subscribe(subscriber)
        #expect(subscriber.values == [1, 0, 3])
        #expect(subscriber.completion == .finished)
    }
}
