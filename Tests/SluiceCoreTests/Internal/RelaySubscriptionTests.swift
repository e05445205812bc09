@testable import SluiceCore
import SluiceTesting
import Testing

/// Counts the cancellations a relay reports.
private final class Owner: RelayOwner, @unchecked Sendable {
    private let count = Shared(0)
    var cancellations: Int { count.value }
    func relayCancelled() { count.mutate { $0 += 1 } }
}

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

    @Test func anUnnamedRelayReturnsTheDemandFromReceive() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: nil))
        #expect(upstream.send(1) == .max(3))
        #expect(upstream.subscription.requests == [.max(2)])
    }

    @Test func aNamedRelaysMirrorHasNoChildren() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Multicast"))
        #expect(Mirror(reflecting: subscriber.subscription!).children.isEmpty)
        #expect((subscriber.subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
            == "Multicast")
    }

    @Test func takesTheUpstreamSubscriptionsDescriptionWhenUnnamed() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: nil))
        #expect(String(describing: subscriber.subscription!) == "ManualSubscription")
    }

    @Test func cancelCancelsUpstreamAndTellsTheOwnerOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let owner = Owner()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Relay", owner: owner))
        let subscription = subscriber.subscription!
        subscription.cancel()
        subscription.cancel()
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(owner.cancellations == 1)
        #expect(subscriber.values.isEmpty)
    }

    @Test func completionDoesNotTellTheOwner() {
        let upstream = ManualPublisher<Int, Never>()
        let owner = Owner()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Relay", owner: owner))
        upstream.send(completion: .finished)
        subscriber.subscription?.cancel()
        #expect(owner.cancellations == 0)
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
