@testable import SluiceCore
import Testing

@Suite("UpstreamStatus")
struct UpstreamStatusTests {
    @Test func startsAwaiting() {
        let status = UpstreamStatus()
        #expect(status.subscription == nil)
        #expect(!status.isTerminal)
    }

    @Test func acceptsOnlyTheFirstSubscription() {
        var status = UpstreamStatus()
        let first = ManualPublisher<Int, Never>.Subscription()
        let second = ManualPublisher<Int, Never>.Subscription()
        let acceptedFirst = status.attach(first)
        let acceptedSecond = status.attach(second)
        #expect(acceptedFirst)
        #expect(!acceptedSecond)
        #expect(status.subscription as? ManualPublisher<Int, Never>.Subscription === first)
    }

    @Test func detachReturnsTheSubscriptionOnceAndBecomesTerminal() {
        var status = UpstreamStatus()
        let subscription = ManualPublisher<Int, Never>.Subscription()
        _ = status.attach(subscription)
        let detached = status.detach()
        #expect(detached as? ManualPublisher<Int, Never>.Subscription === subscription)
        #expect(status.isTerminal)
        #expect(status.subscription == nil)
        let detachedAgain = status.detach()
        #expect(detachedAgain == nil)
        let reattached = status.attach(subscription)
        #expect(!reattached)
    }

    @Test func detachBeforeAnySubscription() {
        var status = UpstreamStatus()
        let detached = status.detach()
        #expect(detached == nil)
        #expect(status.isTerminal)
    }

    @Test func finishSucceedsOnceAndReleasesTheSubscription() {
        var status = UpstreamStatus()
        weak var weakSubscription: ManualPublisher<Int, Never>.Subscription?
        do {
            let subscription = ManualPublisher<Int, Never>.Subscription()
            weakSubscription = subscription
            _ = status.attach(subscription)
        }
        #expect(weakSubscription != nil)
        let finished = status.finish()
        #expect(finished)
        #expect(weakSubscription == nil)
        let finishedAgain = status.finish()
        #expect(!finishedAgain)
        #expect(status.isTerminal)
        let detached = status.detach()
        #expect(detached == nil)
    }

    @Test func finishWithoutSubscription() {
        var status = UpstreamStatus()
        let finished = status.finish()
        let attached = status.attach(ManualPublisher<Int, Never>.Subscription())
        #expect(finished)
        #expect(!attached)
    }
}
