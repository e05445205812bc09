import SluiceCore
import Synchronization
import Testing

private final class Probe: Cancellable, @unchecked Sendable {
    let count = Atomic<Int>(0)
    func cancel() { count.add(1, ordering: .relaxed) }
    var cancels: Int { count.load(ordering: .relaxed) }
}

@Suite("Cancellable")
struct CancellableTests {
    @Test func storeInSetWrapsInAnAnyCancellableThatCancelsWhenReleased() {
        let probe = Probe()
        var set = Set<AnyCancellable>()
        probe.store(in: &set)
        #expect(set.count == 1)
        #expect(probe.cancels == 0)
        set.removeAll()
        #expect(probe.cancels == 1)
    }

    @Test func storeInCollectionWrapsInAnAnyCancellableThatCancelsWhenReleased() {
        let probe = Probe()
        var array: [AnyCancellable] = []
        probe.store(in: &array)
        probe.store(in: &array)
        #expect(array.count == 2)
        array[0].cancel()
        #expect(probe.cancels == 1)
        array = []
        #expect(probe.cancels == 2)
    }

    @Test func storingASubscriptionCancelsItWhenReleased() {
        let publisher = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriberProbe()
        publisher.subscribe(subscriber)
        var set = Set<AnyCancellable>()
        subscriber.subscription!.store(in: &set)
        set = []
        #expect(publisher.subscription.cancelCount == 1)
    }
}

/// A minimal subscriber keeping its subscription, to store it as a `Cancellable`.
private final class TestSubscriberProbe: Subscriber {
    var subscription: (any Subscription)?
    func receive(subscription: any Subscription) { self.subscription = subscription }
    func receive(_ input: Int) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
}
