@testable import SluiceCore
import SluiceTesting
import Testing

@Suite("SubjectSubscription")
struct SubjectSubscriptionTests {
    @Test func aValueSentInsideReceiveSubscriptionIsDeliveredAtOnce() {
        // As Apple's: a value sent while the subscriber is still inside receive(subscription:)
        // (having requested demand there) is delivered at once, before it returns.
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        var log: [String] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                log.append("subscription begins")
                subscription.request(.max(1))
                core.send(1)
                log.append("subscription ends")
            },
            receiveValue: { value in
                log.append("value \(value)")
                return .none
            })
        core.receive(subscriber: subscriber)
        #expect(log == ["subscription begins", "value 1", "subscription ends"])
    }

    @Test func theCurrentValueIsDeliveredWhenRequestedInsideReceiveSubscription() {
        let core = SubjectCore<Int, Never>(kind: .currentValue, currentValue: 7)
        var log: [String] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                subscription.request(.max(1))
                log.append("requested")
            },
            receiveValue: { value in
                log.append("value \(value)")
                return .none
            })
        core.receive(subscriber: subscriber)
        #expect(log == ["value 7", "requested"])
    }

    @Test func completionDuringReceiveSubscriptionIsDeliveredAtOnce() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        var log: [String] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                subscription.request(.unlimited)
                core.send(1)
                core.send(completion: .finished)
                log.append("subscription ends")
            },
            receiveValue: { value in
                log.append("value \(value)")
                return .none
            },
            receiveCompletion: { log.append("\($0)") })
        core.receive(subscriber: subscriber)
        #expect(log == ["value 1", "finished", "subscription ends"])
    }

    @Test func cancelDuringDeliveryDropsQueuedValues() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 1 {
                subject.send(2)
                subject.send(3)
                subscriber.cancel()
            }
            return .none
        }
        subject.subscribe(subscriber)
        subject.send(1)
        #expect(subscriber.values == [1])
    }

    @Test func queuedValuesUseDemandAtTheMomentTheyAreSent() {
        // Inside receive(1) demand is exhausted: a re-entrant value is dropped even though
        // receive(1) then returns more demand (as in Combine, where demand is counted on send).
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { value, _ in
            if value == 1 { subject.send(2) }
            return .max(1)
        }
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(3)
        #expect(subscriber.values == [1, 3])
    }

    @Test func keptValueIsDeliveredBeforeALaterCompletion() {
        let core = SubjectCore<Int, Never>(kind: .currentValue, currentValue: 0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value == 0 {
                core.send(1)                    // no demand: kept as the latest value
                subscriber.request(.max(1))     // demand for it, while still delivering
                core.send(completion: .finished)
            }
            return .none
        }
        core.receive(subscriber: subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(CurrentValueSubject)", "value(0)", "value(1)", "finished"])
    }

    @Test func requestAfterCompletionIsIgnored() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        let subscription = subscriber.subscription!
        subject.send(completion: .finished)
        subscription.request(.max(1))
        subscription.cancel()
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "finished"])
    }

    @Test func releasesTheCoreOnCancelAndCompletion() {
        weak var weakCore: SubjectCore<Int, Never>?
        var subscription: (any Subscription)?
        do {
            let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
            weakCore = core
            let subscriber = TestSubscriber<Int, Never>()
            core.receive(subscriber: subscriber)
            subscription = subscriber.subscription
        }
        #expect(weakCore != nil)  // a live subscription keeps its subject alive
        subscription?.cancel()
        #expect(weakCore == nil)
    }

    @Test func mirrorShowsDownstreamAndDemand() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        subject.subscribe(subscriber)
        let mirror = Mirror(reflecting: subscriber.subscription!)
        #expect(mirror.children.first { $0.label == "demand" }?.value as? Subscribers.Demand == .max(2))
        #expect(mirror.children.first { $0.label == "downstream" }?.value as? TestSubscriber<Int, Never> === subscriber)
    }
}
