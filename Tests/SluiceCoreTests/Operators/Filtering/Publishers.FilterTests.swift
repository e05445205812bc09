import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Filter")
struct FilterTests {
    @Test func republishesMatchingValuesAndPassesTheCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        for value in 1...5 { subject.send(value) }
        subject.send(completion: .failure(TestError(code: 1)))
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(2)", "value(4)", "failure(TestError(code: 1))",
        ])
    }

    @Test func sequenceMapFilterSink() {
        var received: [Int] = []
        var completion: Subscribers.Completion<Never>?
        let cancellable = Publishers.Map(upstream: Publishers.Sequence<ClosedRange<Int>, Never>(sequence: 1...10)) { $0 * 2 }
            .filter { $0 % 3 == 0 }
            .sink(receiveCompletion: { completion = $0 }, receiveValue: { received.append($0) })
        #expect(received == [6, 12, 18])
        #expect(completion == .finished)
        _ = cancellable
    }

    @Test func limitedDemandCountsOnlyMatchingValues() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        Publishers.Sequence<ClosedRange<Int>, Never>(sequence: 1...10).filter { $0 % 2 == 0 }.subscribe(subscriber)
        #expect(subscriber.values == [2])
        subscriber.request(.max(2))
        #expect(subscriber.values == [2, 4, 6])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [2, 4, 6, 8, 10])
        #expect(subscriber.completion == .finished)
    }

    @Test func aDroppedValueAsksUpstreamForOneMore() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(5))
        upstream.filter { $0 > 0 }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.send(-1) == .max(1))
        #expect(upstream.send(3) == .max(5))  // a matching value returns the downstream's demand
        #expect(subscriber.values == [3])
    }

    @Test func limitedDemandWithASubject() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.filter { $0.isMultiple(of: 3) }.subscribe(subscriber)
        for value in 1...9 { subject.send(value) }
        #expect(subscriber.values == [3])
        subscriber.request(.max(1))
        for value in 10...13 { subject.send(value) }
        #expect(subscriber.values == [3, 12])
    }

    @Test func cancellingCancelsUpstreamAndStopsValues() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.filter { _ in true }.subscribe(subscriber)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)

        let subject = PassthroughSubject<Int, Never>()
        let other = TestSubscriber<Int, Never>()
        subject.filter { _ in true }.subscribe(other)
        subject.send(1)
        other.cancel()
        subject.send(2)
        subject.send(completion: .finished)
        #expect(other.values == [1])
        #expect(other.completion == nil)
    }

    @Test func cancelFromInsideReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 4 { subscriber.cancel() }
            return .none
        }
        (1...10).publisher.eraseToAnyPublisher().filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(subscriber.values == [2, 4])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriberOnCancel() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.filter { _ in true }.subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func theUpstreamSeesASubscriberNamedFilter() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.filter { _ in true }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "Filter")
        let recording = RecordingPublisher<Int>()
        recording.filter { _ in true }.subscribe(TestSubscriber<Int, Never>())
        let inner = recording.subscriber!
        #expect((inner as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Filter")
        #expect(Mirror(reflecting: inner).children.isEmpty)  // as in Combine
    }

    // MARK: Types

    @Test func filterReturnsAFilterOfTheUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        let filtered = subject.filter { $0 > 0 }
        #expect(type(of: filtered) == Publishers.Filter<PassthroughSubject<Int, Never>>.self)
        #expect(filtered.upstream === subject)
        #expect(filtered.isIncluded(1))
        #expect(!filtered.isIncluded(0))
    }

    @Test func filterOfAFilterIsFusedAndRequiresBothPredicates() {
        let subject = PassthroughSubject<Int, Never>()
        var secondPredicateCalls: [Int] = []
        let fused = subject.filter { $0.isMultiple(of: 2) }.filter {
            secondPredicateCalls.append($0)
            return $0.isMultiple(of: 3)
        }
        #expect(type(of: fused) == Publishers.Filter<PassthroughSubject<Int, Never>>.self)
        let subscriber = TestSubscriber<Int, Never>()
        fused.subscribe(subscriber)
        for value in 1...12 { subject.send(value) }
        #expect(subscriber.values == [6, 12])
        #expect(secondPredicateCalls == [2, 4, 6, 8, 10, 12])  // the first predicate runs first
    }

    @Test func mapThenFilterIsNotFused() {
        let subject = PassthroughSubject<Int, Never>()
        let chain = subject.map { $0 }.filter { $0 > 0 }
        #expect(type(of: chain) == Publishers.Filter<Publishers.Map<PassthroughSubject<Int, Never>, Int>>.self)
    }
}
