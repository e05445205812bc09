import SluiceCore
import Testing

private final class ClassSubscriber: Subscriber {
    func receive(subscription: any Subscription) {}
    func receive(_ input: Int) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
}

private struct StructSubscriber: Subscriber {
    let combineIdentifier = CombineIdentifier()
    func receive(subscription: any Subscription) {}
    func receive(_ input: Int) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
}

@Suite("CustomCombineIdentifierConvertible")
struct CustomCombineIdentifierConvertibleTests {
    @Test func classesGetTheirIdentityForFree() {
        let subscriber = ClassSubscriber()
        #expect(subscriber.combineIdentifier == CombineIdentifier(subscriber))
        #expect(subscriber.combineIdentifier == subscriber.combineIdentifier)
        #expect(subscriber.combineIdentifier != ClassSubscriber().combineIdentifier)
    }

    @Test func structuresKeepTheIdentifierTheyStore() {
        let subscriber = StructSubscriber()
        let copy = subscriber
        #expect(copy.combineIdentifier == subscriber.combineIdentifier)
        #expect(StructSubscriber().combineIdentifier != subscriber.combineIdentifier)
    }
}
