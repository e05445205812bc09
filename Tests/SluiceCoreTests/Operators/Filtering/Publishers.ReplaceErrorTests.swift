import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.ReplaceError")
struct ReplaceErrorTests {
    @Test func replacesTheFailureWithTheValueAndFinishes() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.replaceError(with: 0).subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.eventDescriptions == ["subscription(ReplaceError)", "value(1)", "value(0)", "finished"])
    }

    @Test func finishedPassesThroughWithoutTheValue() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...2).publisher.setFailureType(to: TestError.self).eraseToAnyPublisher().replaceError(with: 0)
            .subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
    }

    @Test func theReplacementWaitsForDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.replaceError(with: 0).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 0])
        #expect(subscriber.completion == .finished)
        #expect(upstream.subscription.requests == [.max(1)])  // not forwarded after completion
    }

    @Test func aFailureBeforeAnyDemandWaits() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Fail<Int, TestError>(error: TestError()).replaceError(with: 5).subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(3))
        #expect(subscriber.values == [5])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandReturnedFromReceiveCounts() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        upstream.replaceError(with: 0).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.values == [1, 0])
    }

    @Test func cancelWhileWaitingSendsNothing() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.replaceError(with: 0).subscribe(subscriber)
        subscriber.cancel()
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.events.count == 1)
    }

    @Test func reentrantCancelInsideTheReplacement() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        Fail<Int, TestError>(error: TestError()).replaceError(with: 0).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(ReplaceError)", "value(0)"])
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ subject.replaceError(with: 0).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.replaceError(with: 0).subscribe($0) },
                                    end: { _ in subject.send(completion: .failure(TestError())) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, TestError>()
        upstream.replaceError(with: 0).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "ReplaceError")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Fail<Int, TestError>(error: TestError()).replaceError(with: 0) }
        try await PublisherContract.verify {
            Record<Int, TestError>(output: Array(1...10), completion: .failure(TestError())).replaceError(with: 0)
        }
    }

    @Test func typeAndEquality() {
        let subject = PassthroughSubject<Int, TestError>()
        #expect(type(of: subject.replaceError(with: 0))
            == Publishers.ReplaceError<PassthroughSubject<Int, TestError>>.self)
        let fail = Fail<Int, TestError>(error: TestError())
        #expect(fail.replaceError(with: 1) == fail.replaceError(with: 1))
        #expect(fail.replaceError(with: 1) != fail.replaceError(with: 2))
    }
}

extension ReplaceErrorTests {
    @Test func fusedOnJustOptionalAndResult() {
        #expect(type(of: Just(1).replaceError(with: 0)) == Just<Int>.self)
        #expect(Just(1).replaceError(with: 0) == Just(1))
        #expect(type(of: Optional(2).publisher.replaceError(with: 0)) == Optional<Int>.Publisher.self)
        #expect(Optional(2).publisher.replaceError(with: 0) == Optional(2).publisher)
        #expect(Optional<Int>.none.publisher.replaceError(with: 0) == Optional<Int>.none.publisher)
        let result = Result<Int, TestError>.Publisher(3).replaceError(with: 0)
        #expect(type(of: result) == Result<Int, Never>.Publisher.self)
        #expect(result.result == .success(3))
        #expect(Result<Int, TestError>.Publisher(TestError()).replaceError(with: 7).result == .success(7))
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension ReplaceErrorTests {
    @Test func eventsBeforeTheSubscriptionAreIgnored() {
        let outcome = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.replaceError(with: 0) }
        #expect(outcome.demand == .none)
        #expect(outcome.events == [])
    }

    @Test func aSubscriptionAfterACancelIsNeitherRequestedFromNorCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.replaceError(with: 0) }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 0)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.replaceError(with: 0) } == [])
    }

    @Test func aValueWithoutDemandStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            upstream.replaceError(with: 0).subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
            upstream.send(1)
        }
    }
}
