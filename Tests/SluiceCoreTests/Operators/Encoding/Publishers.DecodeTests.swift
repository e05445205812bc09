import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Decode")
struct DecodeTests {
    @Test func decodesValuesAndFinishes() {
        let subscriber = TestSubscriber<Int, any Error>()
        ["1", "2", "3"].publisher.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(Decode)", "value(1)", "value(2)", "value(3)", "finished",
        ])
    }

    @Test func upstreamFailurePassesThroughAsAnyError() {
        let subject = PassthroughSubject<String, TestError>()
        let subscriber = TestSubscriber<Int, any Error>()
        subject.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        subject.send("7")
        subject.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.values == [7])
        #expect(recordedTestError(subscriber) == TestError(code: 3))
    }

    @Test func decodingErrorCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<String, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        upstream.send("1")
        #expect(upstream.send("x") == .none)
        upstream.send("2")
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.events.count == 3)
        guard case .failure(let error) = subscriber.completion else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? ToyCodingError == ToyCodingError(input: "x"))
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        ["1", "2", "3"].publisher.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion != nil)
    }

    @Test func demandPassesThroughBothWays() {
        let upstream = ManualPublisher<String, Never>()
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send("1") == .max(3))
        subscriber.request(.max(4))
        #expect(upstream.subscription.requests == [.max(2), .max(4)])
    }

    @Test func cancellingCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<String, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        upstream.send("1")
        subscriber.cancel()
        upstream.send("2")
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantRequestAndCancelFromReceive() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() } else { subscriber.request(.max(1)) }
            return .none
        }
        ["1", "2", "3", "4"].publisher.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<String, Never>()
        #expect(!subscriberSurvives({ subject.decode(type: Int.self, decoder: ToyDecoder()).subscribe($0) },
                                    end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.decode(type: Int.self, decoder: ToyDecoder()).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<String, Never>()
        #expect(!subscriberSurvives({ other.decode(type: Int.self, decoder: ToyDecoder()).subscribe($0) },
                                    end: { _ in other.send("x") }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<String, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        #expect(upstream.subscriberDescription == "Decode")
        #expect(String(describing: subscriber.subscription!) == "Decode")
    }

    @Test func types() {
        let subject = PassthroughSubject<String, Never>()
        let decoded = subject.decode(type: Int.self, decoder: ToyDecoder())
        #expect(type(of: decoded) == Publishers.Decode<PassthroughSubject<String, Never>, Int, ToyDecoder>.self)
        #expect(decoded.upstream === subject)
        let strings = subject.decode(type: String.self, decoder: ToyDecoder())
        #expect(type(of: strings) == Publishers.Decode<PassthroughSubject<String, Never>, String, ToyDecoder>.self)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...20).map(String.init).publisher.decode(type: Int.self, decoder: ToyDecoder())
        }
        try await PublisherContract.verify { ["1", "2", "x", "4"].publisher.decode(type: Int.self, decoder: ToyDecoder()) }
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension DecodeTests {
    @Test func eventsBeforeTheSubscriptionArePublished() {
        let outcome = eventsBeforeTheSubscription(sending: "x") { upstream in
            upstream.decode(type: Int.self, decoder: ToyDecoder())
        }
        #expect(outcome.demand == .none)
        #expect(outcome.events.count == 1)
        #expect(outcome.events.first?.hasPrefix("failure(") == true)
        let decoded = eventsBeforeTheSubscription(sending: "4") { upstream in
            upstream.decode(type: Int.self, decoder: ToyDecoder())
        }
        #expect(decoded.demand == .max(42))
        #expect(decoded.events == ["value(4)", "finished"])
    }

    @Test func aSubscriptionAfterACancelIsNeitherRequestedFromNorCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<String, Never>) in
            upstream.decode(type: Int.self, decoder: ToyDecoder())
        }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 0)
    }

    @Test func mirror() {
        let subscriber = TestSubscriber<Int, any Error>()
        PassthroughSubject<String, Never>().decode(type: Int.self, decoder: ToyDecoder()).subscribe(subscriber)
        #expect(Mirror(reflecting: subscriber.subscription!).children.map(\.label)
            == ["downstream", "finished", "upstreamSubscription"])
    }
}
