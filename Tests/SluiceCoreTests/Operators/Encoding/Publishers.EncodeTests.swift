import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Encode")
struct EncodeTests {
    @Test func encodesValuesAndFinishes() {
        let subscriber = TestSubscriber<String, any Error>()
        (1...3).publisher.encode(encoder: ToyEncoder()).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(Encode)", "value(1)", "value(2)", "value(3)", "finished",
        ])
    }

    @Test func upstreamFailurePassesThroughAsAnyError() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<String, any Error>()
        subject.encode(encoder: ToyEncoder()).subscribe(subscriber)
        subject.send(7)
        subject.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.values == ["7"])
        #expect(recordedTestError(subscriber) == TestError(code: 3))
    }

    @Test func encodingErrorCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, any Error>()
        upstream.encode(encoder: ToyEncoder()).subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.send(-1) == .none)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == ["1"])
        #expect(subscriber.events.count == 3)
        guard case .failure(let error) = subscriber.completion else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? ToyCodingError == ToyCodingError(input: "-1"))
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<String, any Error>(initialDemand: .max(1))
        (1...3).publisher.encode(encoder: ToyEncoder()).subscribe(subscriber)
        #expect(subscriber.values == ["1"])
        subscriber.request(.max(1))
        #expect(subscriber.values == ["1", "2"])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == ["1", "2", "3"])
        #expect(subscriber.completion != nil)
    }

    @Test func demandPassesThroughBothWays() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, any Error>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.encode(encoder: ToyEncoder()).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(3))
        subscriber.request(.max(4))
        #expect(upstream.subscription.requests == [.max(2), .max(4)])
    }

    @Test func cancellingCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, any Error>()
        upstream.encode(encoder: ToyEncoder()).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == ["1"])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantRequestAndCancelFromReceive() {
        let subscriber = TestSubscriber<String, any Error>(initialDemand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value == "3" { subscriber.cancel() } else { subscriber.request(.max(1)) }
            return .none
        }
        (1...5).publisher.encode(encoder: ToyEncoder()).subscribe(subscriber)
        #expect(subscriber.values == ["1", "2", "3"])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.encode(encoder: ToyEncoder()).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.encode(encoder: ToyEncoder()).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.encode(encoder: ToyEncoder()).subscribe($0) },
                                    end: { _ in other.send(-1) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, any Error>()
        upstream.encode(encoder: ToyEncoder()).subscribe(subscriber)
        #expect(upstream.subscriberDescription == "Encode")
        #expect(String(describing: subscriber.subscription!) == "Encode")
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        let encoded = subject.encode(encoder: ToyEncoder())
        #expect(type(of: encoded) == Publishers.Encode<PassthroughSubject<Int, Never>, ToyEncoder>.self)
        #expect(encoded.upstream === subject)
        #expect(type(of: Publishers.Encode(upstream: Just(1), encoder: ToyEncoder()).upstream) == Just<Int>.self)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...20).publisher.encode(encoder: ToyEncoder()) }
        try await PublisherContract.verify { [1, 2, -1, 4].publisher.encode(encoder: ToyEncoder()) }
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension EncodeTests {
    @Test func eventsBeforeTheSubscriptionArePublished() {
        let outcome = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.encode(encoder: ToyEncoder()) }
        #expect(outcome.demand == .max(42))
        #expect(outcome.events == ["value(1)", "finished"])
    }

    @Test func aSubscriptionAfterACancelIsNeitherRequestedFromNorCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in
            upstream.encode(encoder: ToyEncoder())
        }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 0)
    }

    @Test func mirror() {
        let subscriber = TestSubscriber<String, any Error>()
        PassthroughSubject<Int, Never>().encode(encoder: ToyEncoder()).subscribe(subscriber)
        let children = Mirror(reflecting: subscriber.subscription!).children
        #expect(children.map(\.label) == ["downstream", "finished", "upstreamSubscription"])
        #expect(children.map { String(describing: $0.value) }[1] == "false")
    }
}
