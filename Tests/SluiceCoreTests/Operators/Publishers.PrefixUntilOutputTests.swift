import SluiceCore
import SluiceTesting
import Testing

/// `upstream.prefix(untilOutputFrom: other)` over two manual publishers (the other with an
/// unrelated failure type), with a subscriber that starts with `initialDemand`.
private func prefixing(initialDemand: Subscribers.Demand = .unlimited)
    -> (ManualPublisher<Int, TestError>, ManualPublisher<String, Never>, TestSubscriber<Int, TestError>)
{
    let upstream = ManualPublisher<Int, TestError>()
    let other = ManualPublisher<String, Never>()
    let subscriber = TestSubscriber<Int, TestError>(initialDemand: initialDemand)
    upstream.prefix(untilOutputFrom: other).subscribe(subscriber)
    return (upstream, other, subscriber)
}

@Suite("Publishers.PrefixUntilOutput")
struct PrefixUntilOutputTests {
    @Test func republishesUntilTheOtherEmitsThenCancelsBothAndFinishes() {
        let (upstream, other, subscriber) = prefixing()
        #expect(other.subscription.requests == [.max(1)])
        upstream.send(1)
        upstream.send(2)
        other.send("stop")
        #expect(upstream.subscription.cancelCount == 1)
        #expect(other.subscription.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        other.send("again")
        #expect(subscriber.eventDescriptions == [
            "subscription(PrefixUntilOutput)", "value(1)", "value(2)", "finished",
        ])
    }

    @Test func theOtherFinishingOrFailingChangesNothing() {
        let (upstream, other, subscriber) = prefixing()
        other.send(completion: .finished)
        upstream.send(1)
        #expect(!upstream.subscription.isCancelled)
        let failingOther = ManualPublisher<String, TestError>()
        let source = ManualPublisher<Int, Never>()
        let failingSubscriber = TestSubscriber<Int, Never>()
        source.prefix(untilOutputFrom: failingOther).subscribe(failingSubscriber)
        failingOther.send(completion: .failure(TestError()))
        source.send(1)
        source.send(completion: .finished)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        #expect(failingSubscriber.eventDescriptions == ["subscription(PrefixUntilOutput)", "value(1)", "finished"])
    }

    @Test func upstreamCompletionsPassThroughAndCancelTheOther() {
        let (upstream, other, subscriber) = prefixing()
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 8)))
        #expect(other.subscription.cancelCount == 1)
        other.send("late")
        #expect(subscriber.eventDescriptions == [
            "subscription(PrefixUntilOutput)", "value(1)", "failure(TestError(code: 8))",
        ])
    }

    @Test func anOtherThatEmitsAtOnceFinishesBeforeAnyValue() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.prefix(untilOutputFrom: Just(4)).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(PrefixUntilOutput)", "finished"])
    }

    @Test func limitedDemandIsForwarded() {
        let (upstream, _, subscriber) = prefixing(initialDemand: .max(1))
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.send(1) == .none)
        subscriber.request(.max(2))
        #expect(upstream.subscription.requests == [.max(1), .max(2)])
        let sequence = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.prefix(untilOutputFrom: Empty<Void, Never>(completeImmediately: false)).subscribe(sequence)
        #expect(sequence.values == [1])
        sequence.request(.max(1))
        #expect(sequence.values == [1, 2])
    }

    @Test func demandReturnedFromReceiveGoesUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.prefix(untilOutputFrom: ManualPublisher<Void, Never>()).subscribe(subscriber)
        #expect(upstream.send(1) == .max(2))
    }

    @Test func cancellingCancelsBothAndStopsEvents() {
        let (upstream, other, subscriber) = prefixing()
        let subscription = subscriber.subscription!
        subscriber.cancel()
        subscription.cancel()
        upstream.send(1)
        other.send("stop")
        #expect(upstream.subscription.cancelCount == 1)
        #expect(other.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(PrefixUntilOutput)"])
    }

    @Test func reentrantCancelFromReceive() {
        let (upstream, other, subscriber) = prefixing()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        for value in 1...3 { upstream.send(value) }
        #expect(subscriber.values == [1, 2])
        #expect(upstream.subscription.cancelCount == 1)
        #expect(other.subscription.cancelCount == 1)
    }

    @Test func aTriggerSentFromInsideReceiveFinishesAfterThatValue() {
        let source = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, _ in
            if value == 2 { trigger.send(()) }
            return .none
        }
        source.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        for value in 1...4 { source.send(value) }
        #expect(subscriber.eventDescriptions == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)", "finished"])
    }

    @Test func upstreamAndTriggerOnTwoThreads() {
        for _ in 0..<100 {
            let source = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Void, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            let detector = OverlapDetector()
            watchOverlaps(subscriber, with: detector)
            source.prefix(untilOutputFrom: trigger).subscribe(subscriber)
            onTwoThreads({
                for value in 0..<200 { source.send(value) }
            }, {
                trigger.send(())
            })
            #expect(detector.overlaps == 0)
            // Values from the start, gap-free, then the completion and nothing after it.
            let values = subscriber.values
            #expect(values == Array(0..<values.count))
            #expect(subscriber.events.last.map { "\($0)" } == "finished")
            #expect(subscriber.events.count == values.count + 2)
        }
    }

    @Test func releasesTheSubscriber() {
        let source = PassthroughSubject<Int, TestError>()
        let trigger = PassthroughSubject<Void, Never>()
        #expect(!subscriberSurvives({ source.prefix(untilOutputFrom: trigger).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ source.prefix(untilOutputFrom: trigger).subscribe($0) },
                                    end: { _ in trigger.send(()) }))
        #expect(!subscriberSurvives({ source.prefix(untilOutputFrom: trigger).subscribe($0) },
                                    end: { _ in source.send(completion: .finished) }))
    }

    @Test func descriptions() {
        let (upstream, other, subscriber) = prefixing()
        #expect(upstream.subscriberDescription == "PrefixUntilOutput")
        #expect(other.subscriberDescription == "PrefixUntilOutput")
        #expect(String(describing: subscriber.subscription!) == "PrefixUntilOutput")
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, TestError>()
        let trigger = PassthroughSubject<String, Never>()
        let prefixed = subject.prefix(untilOutputFrom: trigger)
        #expect(type(of: prefixed)
            == Publishers.PrefixUntilOutput<PassthroughSubject<Int, TestError>, PassthroughSubject<String, Never>>.self)
        #expect(prefixed.upstream === subject)
        #expect(prefixed.other === trigger)
    }

    @Test func zeroDemandStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            PublisherContract.requestZeroDemand { PassthroughSubject<Int, Never>().prefix(untilOutputFrom: PassthroughSubject<Int, Never>()) }
        }
        if let result {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("must not be called with .none"), "stderr: \(message)")
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.prefix(untilOutputFrom: Empty<Void, Never>(completeImmediately: false))
        }
        try await PublisherContract.verify {
            (1...30).publisher.prefix(untilOutputFrom: Just(()))
        }
        try await PublisherContract.verify {
            let source = PassthroughSubject<Int, TestError>()
            let trigger = PassthroughSubject<Void, Never>()
            return PublisherContract.Fixture(source.prefix(untilOutputFrom: trigger)) {
                for value in 1...10 { source.send(value) }
                trigger.send(())
                for value in 11...20 { source.send(value) }
            }
        }
    }
}
