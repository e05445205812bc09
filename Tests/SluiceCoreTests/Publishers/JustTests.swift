import SluiceCore
import SluiceTesting
import Testing

@Suite("Just")
struct JustTests {
    @Test func deliversTheValueThenFinishesOnFirstDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Just(5).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Just)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Just)", "value(5)", "finished"])
        subscriber.request(.max(1))
        #expect(subscriber.events.count == 3)
    }

    @Test func unlimitedDemand() {
        let subscriber = TestSubscriber<String, Never>()
        Just("a").subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Just)", "value(a)", "finished"])
    }

    @Test func everySubscriberGetsTheValue() {
        let just = Just(1)
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        just.subscribe(first)
        just.subscribe(second)
        #expect(first.values == [1])
        #expect(second.values == [1])
        #expect(just.output == 1)
    }

    @Test func cancelBeforeDemandSendsNothing() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Just(1).subscribe(subscriber)
        let subscription = subscriber.subscription!
        subscription.cancel()
        subscription.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Just)"])
    }

    @Test func cancelFromInsideReceiveSuppressesTheCompletion() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        Just(1).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Just)", "value(1)"])
    }

    @Test func reentrantRequestFromInsideReceiveDoesNotDeliverTwice() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .max(1)
        }
        Just(1).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Just)", "value(1)", "finished"])
    }

    @Test func releasesTheSubscriberOnCompletionAndCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        var subscription: (any Subscription)?
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            weakSubscriber = subscriber
            Just(1).subscribe(subscriber)
            subscription = subscriber.subscription
        }
        #expect(weakSubscriber != nil)  // the subscription holds it until it is done
        subscription?.request(.max(1))
        #expect(weakSubscriber == nil)

        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            weakSubscriber = subscriber
            Just(1).subscribe(subscriber)
            subscription = subscriber.subscription
        }
        subscription?.cancel()
        #expect(weakSubscriber == nil)
    }

    @Test func subscriptionMirror() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Just(9).subscribe(subscriber)
        let mirror = Mirror(reflecting: subscriber.subscription!)
        #expect(mirror.children.map(\.label) == [nil])  // one unlabelled child, as Apple's
        #expect(mirror.children.first?.value as? Int == 9)
        let playground = (subscriber.subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription
        #expect(playground as? String == "Just")
    }

    @Test func equatable() {
        #expect(Just(1) == Just(1))
        #expect(Just(1) != Just(2))
    }

    @Test func zeroDemandStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            Just(1).subscribe(subscriber)
            subscriber.request(.none)
        }
        if let result {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("must not be called with .none"), "stderr: \(message)")
        }
    }

    // MARK: Fused operators

    @Test func mapReturnsAJust() {
        let mapped = Just(2).map { "\($0 * 3)" }
        #expect(type(of: mapped) == Just<String>.self)
        #expect(mapped.output == "6")
    }

    @Test func filterReturnsAnOptionalPublisher() {
        let kept = Just(4).filter { $0 > 3 }
        #expect(type(of: kept) == Optional<Int>.Publisher.self)
        #expect(kept.output == 4)
        let dropped = Just(2).filter { $0 > 3 }
        #expect(dropped.output == nil)
        let subscriber = TestSubscriber<Int, Never>()
        dropped.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "finished"])
    }

    @Test func genericMapIsNotFused() {
        func mapGenerically<P: Publisher>(_ publisher: P) -> Publishers.Map<P, Int> where P.Output == Int {
            publisher.map { $0 + 1 }
        }
        let subscriber = TestSubscriber<Int, Never>()
        mapGenerically(Just(1)).subscribe(subscriber)
        #expect(subscriber.values == [2])
    }
}
