import SluiceCore
import SluiceTesting
import Testing

private final class VoidCounter: Subscriber {
    var count = 0
    func receive(subscription: any Subscription) { subscription.request(.unlimited) }
    func receive(_ input: Void) -> Subscribers.Demand {
        count += 1
        return .max(1)
    }
    func receive(completion: Subscribers.Completion<Never>) {}
}

@Suite("Subscriber")
struct SubscriberTests {
    @Test func voidSubscribersCanReceiveWithoutAnArgument() {
        let subscriber = VoidCounter()
        #expect(subscriber.receive() == .max(1))
        #expect(subscriber.count == 1)
    }

    @Test func existentialSubscriberWithPrimaryAssociatedTypes() {
        let subscriber: any Subscriber<Int, Never> = TestSubscriber<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let erased = AnySubscriber(subscriber)
        subject.subscribe(erased)
        subject.send(1)
        #expect((subscriber as? TestSubscriber<Int, Never>)?.values == [1])
    }
}
