@testable import SluiceCore
import SluiceTesting
import Testing

@Suite("SubjectSubscriber")
struct SubjectSubscriberTests {
    @Test func handsItselfToTheSubjectAsItsUpstreamSubscription() {
        let upstream = ManualPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let bridge = SubjectSubscriber(subject)
        upstream.subscribe(bridge)
        // Once a subscriber of the subject requests demand, the subject asks the bridge for
        // `.unlimited` (as Apple's PassthroughSubject); the bridge forwards it upstream.
        #expect(upstream.subscription.requests == [])
        subject.subscribe(TestSubscriber<Int, Never>(initialDemand: .max(1)))
        #expect(upstream.subscription.requests == [.unlimited])
        #expect(subject.core.upstreams.count == 1)
        #expect(subject.core.upstreams.first as? SubjectSubscriber<PassthroughSubject<Int, Never>> === bridge)
    }

    @Test func cancellingTheBridgeMakesTheSubjectForgetIt() {
        let subject = PassthroughSubject<Int, Never>()
        let current = CurrentValueSubject<Int, Never>(0)
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        let kept = first.subscribe(subject)
        let dropped = second.subscribe(subject)
        let other = second.subscribe(current)
        #expect(subject.core.upstreams.count == 2)
        #expect(current.core.upstreams.count == 1)
        dropped.cancel()
        other.cancel()
        #expect(subject.core.upstreams.count == 1)
        #expect(current.core.upstreams.isEmpty)
        // The remaining bridge still works; the cancelled one delivers nothing.
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        first.send(1)
        second.send(2)
        #expect(subscriber.values == [1])
        _ = kept
    }

    @Test func reconnectingDoesNotAccumulateUpstreams() {
        let subject = PassthroughSubject<Int, Never>()
        let upstream = PassthroughSubject<Int, Never>()
        for _ in 0..<10 {
            upstream.subscribe(subject).cancel()
        }
        #expect(subject.core.upstreams.isEmpty)
    }

    @Test func forwardsRequestsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let bridge = SubjectSubscriber(PassthroughSubject<Int, Never>())
        upstream.subscribe(bridge)
        bridge.request(.max(3))
        // (The subject, with no subscriber demand yet, has asked for nothing itself.)
        #expect(upstream.subscription.requests == [.max(3)])
    }

    @Test func returnsNoAdditionalDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let bridge = SubjectSubscriber(PassthroughSubject<Int, Never>())
        upstream.subscribe(bridge)
        #expect(upstream.send(1) == .none)
    }

    @Test func cancelsASecondSubscription() {
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let bridge = SubjectSubscriber(PassthroughSubject<Int, Never>())
        first.subscribe(bridge)
        second.subscribe(bridge)
        #expect(second.subscription.cancelCount == 1)
        #expect(second.subscription.requests.isEmpty)
        #expect(first.subscription.cancelCount == 0)
    }

    @Test func cancelsASubscriptionArrivingAfterCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let bridge = SubjectSubscriber(subject)
        bridge.cancel()
        upstream.subscribe(bridge)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subject.core.upstreams.isEmpty)
    }

    @Test func requestAfterCancelIsIgnored() {
        let upstream = ManualPublisher<Int, Never>()
        let bridge = SubjectSubscriber(CurrentValueSubject<Int, Never>(0))
        upstream.subscribe(bridge)
        bridge.cancel()
        bridge.request(.max(1))
        #expect(upstream.subscription.requests == [.unlimited])
    }

    @Test func aCompletionBeforeTheSubscriptionIsIgnored() {
        // As Apple's: the bridge passes a completion on only once it has its subscription.
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        let bridge = SubjectSubscriber(subject)
        bridge.receive(completion: .finished)
        #expect(subscriber.completion == nil)
        let upstream = ManualPublisher<Int, Never>()
        upstream.subscribe(bridge)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "value(1)", "finished"])
    }

    @Test func aWeakBridgeDoesNotKeepTheSubjectAlive() {
        let upstream = ManualPublisher<Int, Never>()
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let bridge: SubjectSubscriber<PassthroughSubject<Int, Never>>
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            bridge = SubjectSubscriber(weakly: subject)
            upstream.subscribe(bridge)
        }
        #expect(weakSubject == nil)
        // The subject cancelled its upstream subscriptions as it went.
        #expect(upstream.subscription.cancelCount == 1)
        bridge.cancel()
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func aStrongBridgeKeepsTheSubjectAliveUntilCancelled() {
        let upstream = ManualPublisher<Int, Never>()
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let bridge: SubjectSubscriber<PassthroughSubject<Int, Never>>
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            bridge = SubjectSubscriber(subject)
            upstream.subscribe(bridge)
        }
        #expect(weakSubject != nil)
        bridge.cancel()
        #expect(weakSubject == nil)
    }

    @Test func description() {
        let bridge = SubjectSubscriber(PassthroughSubject<Int, Never>())
        #expect(String(describing: bridge) == "Subject")
        #expect(bridge.playgroundDescription as? String == "Subject")
        #expect(Mirror(reflecting: bridge).children.map(\.label) == ["downstreamSubject", "upstreamSubscription"])
    }

    @Test func zeroDemandStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let bridge = SubjectSubscriber(PassthroughSubject<Int, Never>())
            bridge.request(.none)
        }
    }
}
