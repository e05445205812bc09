import SluiceCore
import SluiceTesting
import Testing

@Suite("Subscription")
struct SubscriptionTests {
    @Test func emptySubscriptionIgnoresRequestsAndCancellation() {
        let empty = Subscriptions.empty
        empty.request(.max(1))
        empty.request(.unlimited)
        empty.cancel()
        empty.cancel()
        empty.request(.max(1))
        #expect(String(describing: empty) == "Empty")
    }

    @Test func emptySubscriptionIsShared() {
        #expect(Subscriptions.empty.combineIdentifier == Subscriptions.empty.combineIdentifier)
        #expect(Subscriptions.empty as AnyObject === Subscriptions.empty as AnyObject)
    }

    @Test func emptySubscriptionReflection() {
        let empty = Subscriptions.empty
        #expect(Mirror(reflecting: empty).children.isEmpty)
        #expect((empty as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Empty")
    }

    @Test func emptySubscriptionToleratesZeroDemand() {
        // It ignores every request, so even the zero demand a real subscription rejects.
        Subscriptions.empty.request(.none)
        #expect(String(describing: Subscriptions.empty) == "Empty")
    }

    @Test func subscriptionsAreCancellables() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        [1].publisher.subscribe(subscriber)
        let cancellable: any Cancellable = subscriber.subscription!
        cancellable.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values.isEmpty)
    }
}
