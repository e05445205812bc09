@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

@Suite("SingleValueSubscription")
struct SingleValueSubscriptionTests {
    @Test func firstRequestSendsTheValueThenFinished() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        let subscription = SingleValueSubscription(3, downstream: subscriber, name: "One")
        subscriber.receive(subscription: subscription)
        subscription.request(.max(1))
        subscription.request(.unlimited)
        #expect(subscriber.eventDescriptions == ["subscription(One)", "value(3)", "finished"])
    }

    @Test func cancelInsideReceiveSuppressesTheCompletion() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        let subscription = SingleValueSubscription(3, downstream: subscriber, name: "One")
        subscriber.receive(subscription: subscription)
        subscription.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(One)", "value(3)"])
    }

    @Test func concurrentRequestsDeliverOnce() {
        for _ in 0..<50 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            let subscription = SingleValueSubscription(1, downstream: subscriber, name: "One")
            subscriber.receive(subscription: subscription)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in subscription.request(.max(1)) }
            #expect(subscriber.values == [1])
            #expect(subscriber.completion == .finished)
        }
    }

    @Test func descriptionIsTheGivenName() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        let subscription = SingleValueSubscription(3, downstream: subscriber, name: "Once")
        #expect(String(describing: subscription) == "Once")
        #expect(subscription.playgroundDescription as? String == "Once")
    }
}
