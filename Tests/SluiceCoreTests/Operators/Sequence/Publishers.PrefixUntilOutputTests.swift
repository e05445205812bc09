import SluiceCore
import SluiceTesting
import Testing

/// `upstream.prefix(untilOutputFrom: other)` over two manual publishers (the other with an
/// unrelated failure type), with a subscriber whose first demand is `initialDemand`.
private func prefixing(initialDemand: Subscribers.Demand = .unlimited)
    -> (ManualPublisher<Int, TestError>, ManualPublisher<String, Never>, TestSubscriber<Int, TestError>)
{
    let upstream = ManualPublisher<Int, TestError>()
    let other = ManualPublisher<String, Never>()
    let subscriber = TestSubscriber<Int, TestError>(initialDemand: initialDemand)
    upstream.prefix(untilOutputFrom: other).subscribe(subscriber)
    return (upstream, other, subscriber)
}

/// The events, the subscription named "PrefixUntilOutput" (it has no description of its own: its
/// type's name, which names the operator, stands for it, as in Apple's Combine).
private func named(_ events: [String]) -> [String] {
    events.map { $0.hasPrefix("subscription(") && $0.contains("PrefixUntilOutput") ? "subscription(PrefixUntilOutput)" : $0 }
}

@Suite("Publishers.PrefixUntilOutput")
struct PrefixUntilOutputTests {
    @Test func republishesUntilTheOtherEmitsThenCancelsTheUpstreamAndFinishes() {
        let (upstream, other, subscriber) = prefixing()
        #expect(other.subscription.requests == [.max(1)])
        upstream.send(1)
        upstream.send(2)
        other.send("stop")
        #expect(upstream.subscription.cancelCount == 1)
        #expect(other.subscription.cancelCount == 0)  // as in Apple's Combine
        upstream.send(3)
        upstream.send(completion: .finished)
        other.send("again")
        #expect(named(subscriber.eventDescriptions) == [
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
        #expect(named(failingSubscriber.eventDescriptions) == ["subscription(PrefixUntilOutput)", "value(1)", "finished"])
    }

    @Test func upstreamCompletionsPassThroughAndCancelTheOther() {
        let (upstream, other, subscriber) = prefixing()
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 8)))
        #expect(other.subscription.cancelCount == 1)
        other.send("late")
        #expect(named(subscriber.eventDescriptions) == [
            "subscription(PrefixUntilOutput)", "value(1)", "failure(TestError(code: 8))",
        ])
    }

    @Test func anOtherThatEmitsAtOnceFinishesBeforeAnyValueOrSubscription() {
        // As in Apple's Combine: `.finished` alone (the subscriber never gets a subscription).
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.prefix(untilOutputFrom: Just(4)).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["finished"])
    }

    @Test func theOtherEmittingBeforeTheUpstreamsSubscriptionFinishesAloneAndCancelsItLater() {
        let upstream = LatePublisher<Int, Never>()
        let other = ManualPublisher<Void, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: other).subscribe(subscriber)
        #expect(other.subscription.requests == [.max(1)])
        #expect(other.send(()) == .none)
        #expect(subscriber.eventDescriptions == ["finished"])
        let subscription = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: subscription)
        #expect(subscription.cancelCount == 1)
        #expect(subscription.requests == [])
        #expect(subscriber.eventDescriptions == ["finished"])
        #expect(other.subscription.requests == [.max(1)])
        #expect(other.subscription.cancelCount == 0)
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
        #expect(named(subscriber.eventDescriptions) == ["subscription(PrefixUntilOutput)"])
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
        #expect(named(subscriber.eventDescriptions) == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)", "finished"])
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
        // As in Apple's Combine: no description, mirror or playground description of its own.
        let (upstream, other, subscriber) = prefixing()
        #expect(upstream.subscriberDescription?.contains("PrefixUntilOutput") == true)
        #expect(other.subscriberDescription?.contains("PrefixUntilOutput") == true)
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription).contains("PrefixUntilOutput"))
        #expect(!(subscription is CustomStringConvertible))
        #expect(!(subscription is CustomReflectable))
        #expect(!(subscription is CustomPlaygroundDisplayConvertible))
    }

    @Test func theUpstreamSubscriptionArrivingAfterTheTriggerIsCancelled() {
        let upstream = PassthroughSubject<Int, Never>()
        let trigger = Just(1)
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        // As in Apple's Combine: `.finished` without a subscription.
        #expect(subscriber.eventDescriptions == ["finished"])
        upstream.send(1)
        #expect(subscriber.eventDescriptions == ["finished"])
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

    @Test func zeroDemandIsPassedOnToTheUpstream() {
        // Apple's Combine passes `.none` on rather than trapping.
        let (upstream, _, subscriber) = prefixing(initialDemand: .none)
        subscriber.request(.none)
        #expect(upstream.subscription.requests == [.none])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.prefix(untilOutputFrom: Empty<Void, Never>(completeImmediately: false))
        }
        // The one exception: a trigger that emits before the upstream's subscription arrives
        // finishes the subscriber without a subscription, as in Apple's Combine.
        let report = await PublisherContract.check {
            (1...30).publisher.prefix(untilOutputFrom: Just(()))
        }
        #expect(report.brokenRules == [.subscriptionFirst])
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
