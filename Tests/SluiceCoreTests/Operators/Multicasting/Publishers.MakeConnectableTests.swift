import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.MakeConnectable")
struct MakeConnectableTests {
    @Test func nothingFlowsUntilConnectThenEverySubscriberSeesTheValues() {
        let connectable = (1...3).publisher.makeConnectable()
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        connectable.subscribe(first)
        connectable.subscribe(second)
        #expect(first.eventDescriptions == ["subscription(Multicast)"])
        let connection = connectable.connect()
        for subscriber in [first, second] {
            #expect(subscriber.eventDescriptions == [
                "subscription(Multicast)", "value(1)", "value(2)", "value(3)", "finished",
            ])
        }
        connection.cancel()
    }

    @Test func theUpstreamIsSubscribedAtEachConnect() {
        // As in Apple's Combine: a second connect() subscribes again, with a connection of its own.
        let upstream = ManualPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        connectable.subscribe(TestSubscriber<Int, Never>())
        connectable.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberCount == 0)
        let connection = connectable.connect()
        #expect(upstream.subscriberCount == 1)
        #expect(upstream.subscription.requests == [.unlimited])
        let again = connectable.connect()
        #expect(upstream.subscriberCount == 2)
        #expect(ObjectIdentifier(connection as AnyObject) != ObjectIdentifier(again as AnyObject))
    }

    @Test func copiesShareTheSubject() {
        let upstream = ManualPublisher<Int, Never>()
        let original = upstream.makeConnectable()
        let copy = original
        let subscriber = TestSubscriber<Int, Never>()
        copy.subscribe(subscriber)
        let connection = original.connect()
        #expect(upstream.subscriberCount == 1)
        upstream.send(1)
        #expect(subscriber.values == [1])
        let second = copy.connect()  // a second connection to the one subject (as in Apple's Combine)
        #expect(upstream.subscriberCount == 2)
        withExtendedLifetime((connection, second)) {}
    }

    @Test func cancellingTheConnectionCancelsTheUpstreamAndConnectReconnects() {
        let upstream = ManualPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let subscriber = TestSubscriber<Int, Never>()
        connectable.subscribe(subscriber)
        let connection = connectable.connect()
        upstream.send(1)
        connection.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(2)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        let again = connectable.connect()
        #expect(upstream.subscriberCount == 2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [1, 3])
        #expect(subscriber.completion == .finished)
        withExtendedLifetime(again) {}
    }

    @Test func theConnectionIsAnAnyCancellableThatDisconnectsWhenReleased() {
        // As in Apple's Combine: a connection that is not kept disconnects at once.
        let upstream = ManualPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let subscriber = TestSubscriber<Int, Never>()
        connectable.subscribe(subscriber)
        #expect(connectable.connect() is AnyCancellable)
        #expect(upstream.subscriberCount == 1)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(1)
        #expect(subscriber.values.isEmpty)
    }

    @Test func limitedAndReturnedDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let limited = TestSubscriber<Int, Never>(initialDemand: .max(1))
        let returning = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        connectable.subscribe(limited)
        connectable.subscribe(returning)
        let connection = connectable.connect()
        upstream.send(1)
        upstream.send(2)
        limited.request(.max(1))
        upstream.send(3)
        #expect(limited.values == [1, 3])
        #expect(returning.values == [1, 2, 3])
        withExtendedLifetime(connection) {}
    }

    @Test func cancellingASubscriberStopsItsEventsOnly() {
        let upstream = ManualPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let leaving = TestSubscriber<Int, Never>()
        let staying = TestSubscriber<Int, Never>()
        connectable.subscribe(leaving)
        connectable.subscribe(staying)
        let connection = connectable.connect()
        upstream.send(1)
        leaving.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(leaving.values == [1])
        #expect(leaving.completion == nil)
        #expect(staying.values == [1, 2])
        #expect(upstream.subscription.cancelCount == 0)
        withExtendedLifetime(connection) {}
    }

    @Test func reentrantCancelAndRequestFromReceive() {
        let connectable = (1...6).publisher.makeConnectable()
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() }
            return .none
        }
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        connectable.subscribe(cancelling)
        connectable.subscribe(requesting)
        let kept = connectable.connect()
        #expect(cancelling.values == [1, 2, 3])
        #expect(cancelling.completion == nil)
        #expect(requesting.values == Array(1...6))
        #expect(requesting.completion == .finished)
        withExtendedLifetime(kept) {}
    }

    @Test func releasesTheSubscriberAndTheUpstreamSubscription() {
        let upstream = ManualPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let kept = connectable.connect()
        #expect(!subscriberSurvives({ connectable.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ connectable.subscribe($0) }, end: { _ in upstream.send(completion: .finished) }))
        withExtendedLifetime(kept) {}

        let tracked = TrackedPublisher<Int, Never>()
        let other = tracked.makeConnectable()
        let connection = other.connect()
        #expect(tracked.aliveCount == 1)
        connection.cancel()
        #expect(tracked.aliveCount == 0)
    }

    @Test func descriptions() {
        let connectable = ManualPublisher<Int, Never>().makeConnectable()
        let subscriber = TestSubscriber<Int, Never>()
        connectable.subscribe(subscriber)
        #expect(String(describing: subscriber.subscription!) == "Multicast")
    }

    @Test func types() {
        let upstream = ManualPublisher<Int, Never>()
        #expect(type(of: upstream.makeConnectable()) == Publishers.MakeConnectable<ManualPublisher<Int, Never>>.self)
        let connectable: any ConnectablePublisher<Int, Never> = Publishers.MakeConnectable(upstream: upstream)
        _ = connectable
    }

    @Test func concurrentConnectsSubscribeTheUpstreamOnceEach() {
        for _ in 0..<100 {
            let subscribed = CallCounter()
            let connectable = Deferred { () -> PassthroughSubject<Int, Never> in
                subscribed.increment()
                return PassthroughSubject()
            }.makeConnectable()
            let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if index.isMultiple(of: 2) {
                    connectable.subscribe(subscribers[index / 2])
                } else {
                    withExtendedLifetime(connectable.connect()) {}
                }
            }
            #expect(subscribed.value == 4)
            #expect(subscribers.allSatisfy { $0.subscriptionsReceived == 1 })
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            let connectable = (1...30).publisher.makeConnectable()
            let connection = Shared<(any Cancellable)?>(nil)  // kept: releasing it disconnects
            return PublisherContract.Fixture(connectable) { connection.value = connectable.connect() }
        }
        try await PublisherContract.verify {
            let subject = PassthroughSubject<Int, Never>()
            let connectable = subject.makeConnectable()
            return PublisherContract.Fixture(connectable) {
                let connection = connectable.connect()
                for value in 1...20 { subject.send(value) }
                subject.send(completion: .finished)
                withExtendedLifetime(connection) {}
            }
        }
    }
}
