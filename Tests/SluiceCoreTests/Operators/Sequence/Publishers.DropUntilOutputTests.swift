@testable import SluiceCore
import SluiceTesting
import Testing

/// `upstream.drop(untilOutputFrom: other)` over two manual publishers, with a subscriber that
/// starts with `initialDemand`.
private func dropping(initialDemand: Subscribers.Demand = .unlimited)
    -> (ManualPublisher<Int, TestError>, ManualPublisher<String, TestError>, TestSubscriber<Int, TestError>)
{
    let upstream = ManualPublisher<Int, TestError>()
    let other = ManualPublisher<String, TestError>()
    let subscriber = TestSubscriber<Int, TestError>(initialDemand: initialDemand)
    upstream.drop(untilOutputFrom: other).subscribe(subscriber)
    return (upstream, other, subscriber)
}

@Suite("Publishers.DropUntilOutput")
struct DropUntilOutputTests {
    @Test func dropsUntilTheOtherEmitsThenRepublishes() {
        let (upstream, other, subscriber) = dropping()
        #expect(other.subscription.requests == [.max(1)])
        upstream.send(1)
        upstream.send(2)
        other.send("go")
        upstream.send(3)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(DropUntilOutput)", "value(3)", "value(4)", "finished"])
    }

    @Test func theOtherIsLetGoButNotCancelledAfterItsFirstValue() {
        // As in Apple's Combine: and a new subscription from it is then accepted.
        let (upstream, other, subscriber) = dropping()
        other.send("go")
        #expect(other.subscription.cancelCount == 0)
        other.send("again")
        other.send(completion: .failure(TestError()))
        upstream.send(1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        #expect(!upstream.subscription.isCancelled)
    }

    @Test func aFailureOfTheOtherCancelsUpstreamAndFails() {
        let (upstream, other, subscriber) = dropping()
        upstream.send(1)
        other.send(completion: .failure(TestError(code: 6)))
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(DropUntilOutput)", "failure(TestError(code: 6))"])
    }

    @Test func theOtherFinishingWithoutAValueCancelsTheUpstreamAndFinishes() {
        // As in Apple's Combine.
        let (upstream, other, subscriber) = dropping()
        other.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(DropUntilOutput)", "finished"])
    }

    @Test func upstreamCompletionsPassThroughAndCancelTheOther() {
        let (upstream, other, subscriber) = dropping()
        upstream.send(completion: .failure(TestError(code: 3)))
        #expect(other.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(DropUntilOutput)", "failure(TestError(code: 3))"])
        let (finishing, finishingOther, finished) = dropping()
        finishingOther.send("go")  // let go of, not cancelled
        finishing.send(completion: .finished)
        #expect(finishingOther.subscription.cancelCount == 0)
        #expect(finished.completion == .finished)
    }

    @Test func droppedValuesCountAgainstTheDemand() {
        // As in Apple's Combine: nothing is asked in their place.
        let (upstream, other, subscriber) = dropping(initialDemand: .max(3))
        #expect(upstream.subscription.requests == [.max(3)])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        other.send("go")
        #expect(upstream.send(3) == .none)
        #expect(subscriber.values == [3])
        subscriber.request(.max(2))
        #expect(upstream.subscription.requests == [.max(3), .max(2)])
    }

    @Test func aValueBeyondTheDemandStopsTheProgram() async {
        // Apple's Combine traps on an upstream that sends more than was asked for.
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
            upstream.drop(untilOutputFrom: ManualPublisher<Int, TestError>()).subscribe(subscriber)
            upstream.send(1)
            upstream.send(2)
        }
    }

    @Test func theSubscriptionComesFirstAndEarlyRequestsWaitForTheUpstream() {
        // As in Apple's Combine: the downstream's subscription, then `other`, then the upstream;
        // what was requested meanwhile is requested at once when the upstream's subscription
        // arrives.
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        let inner = UntilOutputSubscription<TestSubscriber<Int, Never>, Void, Never, DropUntilOutputFlavor>(
            downstream: subscriber, bridgeFailure: nil)
        inner.start()
        #expect(subscriber.eventDescriptions == ["subscription(DropUntilOutput)"])
        inner.request(.max(3))
        inner.request(.none)
        inner.request(.max(4))
        let upstream = ManualPublisher<Int, Never>()
        upstream.subscribe(inner)
        #expect(upstream.subscription.requests == [.max(7)])
    }

    @Test func aSynchronousUpstreamWithLimitedDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.drop(untilOutputFrom: Just("now")).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        let never = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.drop(untilOutputFrom: Empty<String, Never>(completeImmediately: false)).subscribe(never)
        // The dropped value used the one demanded: the sequence waits (as in Apple's Combine).
        #expect(never.eventDescriptions == ["subscription(DropUntilOutput)"])
    }

    @Test func demandReturnedFromReceiveGoesUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let other = ManualPublisher<Void, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(3))
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        other.send(())
        #expect(upstream.send(1) == .max(3))
    }

    @Test func cancellingCancelsBothAndStopsEvents() {
        let (upstream, other, subscriber) = dropping()
        let subscription = subscriber.subscription!
        subscriber.cancel()
        subscription.cancel()
        other.send("go")
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(other.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(DropUntilOutput)"])
    }

    @Test func reentrantCancelFromReceive() {
        let (upstream, other, subscriber) = dropping()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        other.send("go")
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(subscriber.values == [1, 2])
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func aTriggerSentFromInsideReceiveTakesEffectForTheNextValue() {
        let source = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        source.drop(untilOutputFrom: trigger).subscribe(subscriber)
        let tap = TestSubscriber<Int, Never>()
        tap.onValue = { value, _ in
            if value == 2 { trigger.send(()) }
            return .none
        }
        source.subscribe(tap)
        for value in 1...4 { source.send(value) }
        #expect(subscriber.values == [3, 4])
    }

    @Test func upstreamAndTriggerOnTwoThreads() {
        for _ in 0..<100 {
            let source = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Void, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            let detector = OverlapDetector()
            watchOverlaps(subscriber, with: detector)
            source.drop(untilOutputFrom: trigger).subscribe(subscriber)
            onTwoThreads({
                for value in 0..<200 { source.send(value) }
                source.send(completion: .finished)
            }, {
                trigger.send(())
            })
            #expect(detector.overlaps == 0)
            let values = subscriber.values
            // Whatever passed is a gap-free run up to the last value sent.
            #expect(values == Array((200 - values.count)..<200))
            #expect(subscriber.completion == .finished)
            #expect(subscriber.events.count == values.count + 2)
        }
    }

    @Test func releasesTheSubscriber() {
        let source = PassthroughSubject<Int, TestError>()
        let trigger = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ source.drop(untilOutputFrom: trigger).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ source.drop(untilOutputFrom: trigger).subscribe($0) },
                                    end: { _ in trigger.send(1); source.send(completion: .finished) }))
        let failing = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ source.drop(untilOutputFrom: failing).subscribe($0) },
                                    end: { _ in failing.send(completion: .failure(TestError())) }))
    }

    @Test func descriptions() {
        let (upstream, other, subscriber) = dropping()
        #expect(upstream.subscriberDescription == "DropUntilOutput")
        #expect(other.subscriberDescription == "DropUntilOutput")
        #expect(String(describing: subscriber.subscription!) == "DropUntilOutput")
    }

    @Test func typesAndEquality() {
        let subject = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<String, Never>()
        let dropped = subject.drop(untilOutputFrom: trigger)
        #expect(type(of: dropped)
            == Publishers.DropUntilOutput<PassthroughSubject<Int, Never>, PassthroughSubject<String, Never>>.self)
        #expect(dropped.upstream === subject)
        #expect(dropped.other === trigger)
        #expect(Just(1).drop(untilOutputFrom: Just(2)) == Just(1).drop(untilOutputFrom: Just(2)))
        #expect(Just(1).drop(untilOutputFrom: Just(2)) != Just(1).drop(untilOutputFrom: Just(3)))
    }

    @Test func zeroDemandIsIgnored() {
        // Apple's Combine does not trap.
        let (upstream, _, subscriber) = dropping(initialDemand: .none)
        subscriber.request(.none)
        #expect(upstream.subscription.requests.isEmpty)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.drop(untilOutputFrom: Just(()))
        }
        try await PublisherContract.verify {
            let source = PassthroughSubject<Int, TestError>()
            let trigger = PassthroughSubject<Void, TestError>()
            return PublisherContract.Fixture(source.drop(untilOutputFrom: trigger)) {
                for value in 1...5 { source.send(value) }
                trigger.send(())
                for value in 6...20 { source.send(value) }
                source.send(completion: .finished)
            }
        }
        try await PublisherContract.verify {
            let source = PassthroughSubject<Int, TestError>()
            let trigger = PassthroughSubject<Void, TestError>()
            return PublisherContract.Fixture(source.drop(untilOutputFrom: trigger)) {
                source.send(1)
                trigger.send(completion: .failure(TestError()))
                source.send(2)
            }
        }
    }
}
