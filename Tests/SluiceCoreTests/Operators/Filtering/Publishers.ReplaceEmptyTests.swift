import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.ReplaceEmpty")
struct ReplaceEmptyTests {
    @Test func replacesAnEmptyStream() {
        let subscriber = TestSubscriber<Int, Never>()
        Empty<Int, Never>().replaceEmpty(with: 7).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(ReplaceEmpty)", "value(7)", "finished"])
    }

    @Test func aNonEmptyStreamPassesThroughUnchanged() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.eraseToAnyPublisher().replaceEmpty(with: 7).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func aFailurePassesThroughEvenWhenEmpty() {
        let subscriber = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 2)).replaceEmpty(with: 7).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(ReplaceEmpty)", "failure(TestError(code: 2))"])
    }

    @Test func theReplacementWaitsForDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.events.count == 1)
        subscriber.request(.max(1))
        #expect(subscriber.values == [7])
        #expect(subscriber.completion == .finished)
        #expect(upstream.subscription.requests == [.unlimited])  // as in Combine
    }

    @Test func demandPassesThroughBothWaysAndTheUpstreamIsAskedForEverything() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        // As in Combine: the subscriber's request, then `.unlimited` once it has its subscription.
        #expect(upstream.subscription.requests == [.max(1), .unlimited])
        #expect(upstream.send(1) == .max(2))
        subscriber.request(.max(1))
        #expect(upstream.subscription.requests == [.max(1), .unlimited, .max(1)])
    }

    @Test func valuesAreNotLimitedByTheSubscribersDemandAsInCombine() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.eraseToAnyPublisher().replaceEmpty(with: 7).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func aSubscriptionAfterACancelBeforeAnySubscriptionIsAskedForEverythingAsInCombine() {
        // Combine asks it for `.unlimited` and never cancels it; nothing reaches the subscriber.
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in
            upstream.replaceEmpty(with: 0)
        }
        #expect(outcome.requests == [.unlimited])
        #expect(outcome.cancels == 0)
    }

    @Test func mirrorHasNoChildren() {
        #expect(subscriptionMirrorLabels { $0.replaceEmpty(with: 0) } == [])
    }

    @Test func cancelStopsEverythingAndCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        subscriber.cancel()
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.events.count == 1)
    }

    @Test func reentrantCancelFromReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        (1...4).publisher.eraseToAnyPublisher().replaceEmpty(with: 7).subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.replaceEmpty(with: 0).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.replaceEmpty(with: 0).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.replaceEmpty(with: 0).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "ReplaceEmpty")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Empty<Int, Never>().replaceEmpty(with: 1) }
        // The one exception: as in Combine, values are not limited by the subscriber's demand.
        let report = await PublisherContract.check { (1...10).publisher.eraseToAnyPublisher().replaceEmpty(with: 1) }
        #expect(report.brokenRules == [.demand])
    }

    @Test func typeAndEquality() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.replaceEmpty(with: 0)) == Publishers.ReplaceEmpty<PassthroughSubject<Int, Never>>.self)
        #expect(Empty<Int, Never>().replaceEmpty(with: 1) == Empty<Int, Never>().replaceEmpty(with: 1))
        #expect(Empty<Int, Never>().replaceEmpty(with: 1) != Empty<Int, Never>().replaceEmpty(with: 2))
    }
}

extension ReplaceEmptyTests {
    @Test func fusedOnJustOptionalAndResult() {
        #expect(type(of: Just(1).replaceEmpty(with: 0)) == Just<Int>.self)
        #expect(Just(1).replaceEmpty(with: 0) == Just(1))
        #expect(type(of: Optional(2).publisher.replaceEmpty(with: 0)) == Just<Int>.self)
        #expect(Optional(2).publisher.replaceEmpty(with: 0) == Just(2))
        #expect(Optional<Int>.none.publisher.replaceEmpty(with: 9) == Just(9))
        #expect(type(of: Result<Int, TestError>.Publisher(3).replaceEmpty(with: 0)) == Result<Int, TestError>.Publisher.self)
        #expect(Result<Int, TestError>.Publisher(3).replaceEmpty(with: 0).result == .success(3))
        #expect(Result<Int, TestError>.Publisher(TestError(code: 1)).replaceEmpty(with: 0).result
            == .failure(TestError(code: 1)))
    }
}
