import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.CompactMap")
struct CompactMapTests {
    @Test func publishesNonNilResultsAndPassesTheCompletion() {
        let subject = PassthroughSubject<String, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.compactMap { Int($0) }.subscribe(subscriber)
        subject.send("1")
        subject.send("x")
        subject.send("3")
        subject.send(completion: .failure(TestError(code: 2)))
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(1)", "value(3)", "failure(TestError(code: 2))",
        ])
    }

    @Test func finishesWithTheUpstream() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, nil, 3].publisher.eraseToAnyPublisher().compactMap { $0 }.subscribe(subscriber)
        #expect(subscriber.values == [1, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func nilResultsAreReplacedSoLimitedDemandGetsEveryValue() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().compactMap { $0.isMultiple(of: 4) ? $0 : nil }
            .subscribe(subscriber)
        #expect(subscriber.values == [4])
        subscriber.request(.max(1))
        #expect(subscriber.values == [4, 8])
        subscriber.request(.max(1))
        #expect(subscriber.completion == .finished)
    }

    @Test func demandPassesStraightThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.compactMap { $0 > 0 ? $0 : nil }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(0) == .max(1))
        #expect(upstream.send(1) == .max(3))
        // Pass-through: the subscriber holds the upstream's own subscription.
        #expect(subscriber.subscription as? ManualPublisher<Int, Never>.Subscription === upstream.subscription)
    }

    @Test func cancellingCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.compactMap { $0 }.subscribe(subscriber)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        let subject = PassthroughSubject<Int, Never>()
        let other = TestSubscriber<Int, Never>()
        subject.compactMap { $0 }.subscribe(other)
        other.cancel()
        subject.send(1)
        subject.send(completion: .finished)
        #expect(other.events.count == 1)
    }

    @Test func reentrantCancelFromReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        [1, nil, 2, 3].publisher.eraseToAnyPublisher().compactMap { $0 }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.compactMap { $0 }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.compactMap { $0 }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.compactMap { $0 }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "CompactMap")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.eraseToAnyPublisher().compactMap { $0.isMultiple(of: 3) ? $0 : nil }
        }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Base = PassthroughSubject<Int, Never>
        #expect(type(of: subject.compactMap { Int?($0) }) == Publishers.CompactMap<Base, Int>.self)
        #expect(type(of: subject.compactMap { Int?($0) }.compactMap { String?("\($0)") }) == Publishers.CompactMap<Base, String>.self)
        #expect(type(of: subject.compactMap { Int?($0) }.map { "\($0)" }) == Publishers.CompactMap<Base, String>.self)
    }

    @Test func fusedTransformsApplyInOrder() {
        let subscriber = TestSubscriber<String, Never>()
        let evens = (1...6).publisher.eraseToAnyPublisher().compactMap { (value: Int) -> Int? in
            value.isMultiple(of: 2) ? value : nil
        }
        let tens = evens.map { (value: Int) -> Int in value * 10 }
        let fused = tens.compactMap { (value: Int) -> String? in value == 40 ? nil : "#\(value)" }
        #expect(type(of: fused) == Publishers.CompactMap<AnyPublisher<Int, Never>, String>.self)
        fused.subscribe(subscriber)
        #expect(subscriber.values == ["#20", "#60"])
    }
}

extension CompactMapTests {
    @Test func fusedOnJustOptionalAndSequence() {
        let just = Just("7").compactMap { Int($0) }
        #expect(type(of: just) == Optional<Int>.Publisher.self)
        #expect(just == Optional(7).publisher)
        #expect(Just("x").compactMap { Int($0) } == Optional<Int>.none.publisher)

        let optional = Optional("8").publisher.compactMap { Int($0) }
        #expect(type(of: optional) == Optional<Int>.Publisher.self)
        #expect(optional == Optional(8).publisher)
        #expect(Optional("y").publisher.compactMap { Int($0) } == Optional<Int>.none.publisher)
        #expect(Optional<String>.none.publisher.compactMap { Int($0) } == Optional<Int>.none.publisher)

        var calls = 0
        let sequence = ["1", "a", "3"].publisher.compactMap { text -> Int? in
            calls += 1
            return Int(text)
        }
        #expect(calls == 3)
        #expect(type(of: sequence) == Publishers.Sequence<[Int], Never>.self)
        #expect(sequence.sequence == [1, 3])
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension CompactMapTests {
    @Test func theSubscriberPutUpstreamHasAnEmptyMirror() {
        let upstream = LatePublisher<Int, Never>()
        upstream.compactMap { $0 }.subscribe(TestSubscriber())
        #expect(upstream.subscriber.map { Mirror(reflecting: $0).children.isEmpty } == true)
    }
}
