@testable import SluiceCore
import SluiceTesting
import Testing

/// An object whose release a weak reference watches.
private final class KeptAlive {}

@Suite("RelaySubscription")
struct RelaySubscriptionTests {
    @Test func passesEventsAndDemandThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Multicast"))
        #expect(upstream.subscription.requests == [.max(2)])
        // "Multicast", as Apple's: the demand returned from receive(_:) is requested.
        #expect(upstream.send(1) == .none)
        #expect(upstream.subscription.requests == [.max(2), .max(3)])
        subscriber.request(.max(1))
        subscriber.request(.none)  // ignored, no trap (as Apple's Combine)
        #expect(upstream.subscription.requests == [.max(2), .max(3), .max(1)])
        upstream.send(completion: .failure(TestError(code: 9)))
        upstream.send(2)
        #expect(subscriber.eventDescriptions == ["subscription(Multicast)", "value(1)", "failure(TestError(code: 9))"])
    }

    @Test func aNamedRelaysMirrorHasNoChildren() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Multicast"))
        #expect(Mirror(reflecting: subscriber.subscription!).children.isEmpty)
        #expect((subscriber.subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
            == "Multicast")
    }

    @Test func cancelCancelsUpstreamOnceAndReleasesWhatItKeepsAlive() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        weak var weakKept: KeptAlive?
        do {
            let kept = KeptAlive()
            weakKept = kept
            upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Relay", keepAlive: kept))
        }
        #expect(weakKept != nil)
        let subscription = subscriber.subscription!
        subscription.cancel()
        subscription.cancel()
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(weakKept == nil)
        #expect(subscriber.values.isEmpty)
    }

    @Test func completionReleasesWhatItKeepsAlive() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        weak var weakKept: KeptAlive?
        do {
            let kept = KeptAlive()
            weakKept = kept
            upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Relay", keepAlive: kept))
        }
        #expect(weakKept != nil)
        upstream.send(completion: .finished)
        #expect(weakKept == nil)
        #expect(subscriber.completion == .finished)
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let subscriber = TestSubscriber<Int, Never>()
        let relay = RelaySubscription(downstream: subscriber, name: "Relay")
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        first.receive(subscriber: relay)
        second.receive(subscriber: relay)
        #expect(second.subscription.cancelCount == 1)
        #expect(subscriber.subscriptionsReceived == 1)
    }

    @Test func releasesTheSubscriber() {
        let upstream = ManualPublisher<Int, Never>()
        #expect(!subscriberSurvives({ upstream.receive(subscriber: RelaySubscription(downstream: $0, name: "Relay")) },
                                    end: { $0.cancel() }))
        #expect(!subscriberSurvives({ upstream.receive(subscriber: RelaySubscription(downstream: $0, name: "Relay")) },
                                    end: { _ in upstream.send(completion: .finished) }))
    }
}
