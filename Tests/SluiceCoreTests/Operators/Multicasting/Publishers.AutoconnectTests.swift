@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

/// A connectable publisher that keeps its last subscriber and sends it nothing by itself (not even
/// a subscription), for the tests that drive that subscriber by hand.
private final class HoldingConnectable: ConnectablePublisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = TestError
    private(set) var subscriber: AnySubscriber<Int, TestError>?
    private(set) var erasedSubscriber: Any?
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        self.subscriber = AnySubscriber(subscriber)
        erasedSubscriber = subscriber
    }
    func connect() -> any Cancellable { AnyCancellable {} }
}

@Suite("Publishers.Autoconnect")
struct AutoconnectTests {
    @Test func connectsOnTheFirstSubscriptionOnly() {
        let upstream = ManualPublisher<Int, TestError>()
        let connectable = ConnectCounter(manual: upstream)
        let auto = connectable.autoconnect()
        #expect(connectable.connects == 0)
        let first = TestSubscriber<Int, TestError>()
        auto.subscribe(first)
        #expect(connectable.connects == 1)
        let second = TestSubscriber<Int, TestError>()
        auto.subscribe(second)
        #expect(connectable.connects == 1)
        #expect(upstream.subscriberCount == 2)
    }

    @Test func theSubscriberIsAttachedBeforeConnecting() {
        let auto = (1...3).publisher.makeConnectable().autoconnect()
        let subscriber = TestSubscriber<Int, Never>()
        auto.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Multicast)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func valuesAndBothCompletionsPassThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        ConnectCounter(manual: upstream).autoconnect().subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 2)))
        #expect(subscriber.eventDescriptions == ["subscription(ManualSubscription)", "value(1)", "failure(TestError(code: 2))"])

        let finishing = ManualPublisher<Int, TestError>()
        let other = TestSubscriber<Int, TestError>()
        ConnectCounter(manual: finishing).autoconnect().subscribe(other)
        finishing.send(completion: .finished)
        #expect(other.completion == .finished)
    }

    @Test func demandPassesThroughBothWays() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), demandPerValue: .max(5))
        ConnectCounter(manual: upstream).autoconnect().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(5))
        subscriber.request(.max(3))
        #expect(upstream.subscription.requests == [.max(2), .max(3)])
    }

    @Test func limitedDemandThroughAMulticast() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.makeConnectable().autoconnect().subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        subscriber.request(.max(1))
        upstream.send(3)
        #expect(subscriber.values == [1, 3])
    }

    @Test func disconnectsWhenEverySubscriberHasCancelledAndReconnectsForTheNext() {
        let upstream = ManualPublisher<Int, Never>()
        let connectable = ConnectCounter(connectable: upstream.makeConnectable())
        let auto = connectable.autoconnect()
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        auto.subscribe(first)
        auto.subscribe(second)
        upstream.send(1)
        first.cancel()
        #expect(connectable.disconnects == 0)
        second.cancel()
        second.cancel()
        #expect(connectable.disconnects == 1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(first.values == [1] && second.values == [1])

        let third = TestSubscriber<Int, Never>()
        auto.subscribe(third)
        #expect(connectable.connects == 2)
        upstream.send(2)
        #expect(third.values == [2])
        #expect(second.values == [1])
    }

    @Test func cancellingStopsEventsAndCancelsTheUpstreamSubscription() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        ConnectCounter(manual: upstream).autoconnect().subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func afterCompletionALaterSubscriberDoesNotReconnect() {
        let subscribed = CallCounter()
        let connectable = ConnectCounter(connectable: Deferred { () -> Publishers.Sequence<ClosedRange<Int>, Never> in
            subscribed.increment()
            return (1...2).publisher
        }.makeConnectable())
        let auto = connectable.autoconnect()
        let first = TestSubscriber<Int, Never>()
        auto.subscribe(first)
        first.cancel()  // after its completion: does not count
        let late = TestSubscriber<Int, Never>()
        auto.subscribe(late)
        #expect(first.values == [1, 2])
        #expect(late.eventDescriptions == ["subscription(Multicast)", "finished"])
        #expect(connectable.connects == 1)
        #expect(connectable.disconnects == 0)
        #expect(subscribed.value == 1)
    }

    @Test func reentrantCancelDisconnectsAfterConnectReturns() {
        let connectable = ConnectCounter(connectable: (1...9).publisher.makeConnectable())
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() }
            return .none
        }
        connectable.autoconnect().subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
        #expect(connectable.connects == 1)
        #expect(connectable.disconnects == 1)
    }

    @Test func reentrantRequestAndSubscribeFromReceive() {
        let subject = PassthroughSubject<Int, Never>()
        let connectable = ConnectCounter(connectable: subject.makeConnectable())
        let auto = connectable.autoconnect()
        let joiner = TestSubscriber<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value == 1 { auto.subscribe(joiner) }
            subscriber.request(.max(1))
            return .none
        }
        auto.subscribe(subscriber)
        for value in 1...4 { subject.send(value) }
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(joiner.values == [2, 3, 4])
        #expect(connectable.connects == 1)
    }

    @Test func releasesTheSubscriberAndItself() {
        let upstream = ManualPublisher<Int, Never>()
        let auto = upstream.makeConnectable().autoconnect()
        #expect(!subscriberSurvives({ auto.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ auto.subscribe($0) }, end: { _ in upstream.send(completion: .finished) }))

        let tracked = TrackedPublisher<Int, Never>()
        weak var weakAuto: Publishers.Autoconnect<Publishers.MakeConnectable<TrackedPublisher<Int, Never>>>?
        do {
            let auto = tracked.makeConnectable().autoconnect()
            weakAuto = auto
            let subscriber = TestSubscriber<Int, Never>()
            auto.subscribe(subscriber)
            #expect(tracked.aliveCount == 1)
            subscriber.cancel()
            #expect(tracked.aliveCount == 0)
        }
        #expect(weakAuto == nil)
    }

    @Test func descriptionsAreTheUpstreamSubscriptions() {
        let subscriber = TestSubscriber<Int, Never>()
        ManualPublisher<Int, Never>().makeConnectable().autoconnect().subscribe(subscriber)
        #expect(String(describing: subscriber.subscription!) == "Multicast")
        let manual = ManualPublisher<Int, Never>()
        let other = TestSubscriber<Int, Never>()
        ConnectCounter(manual: manual).autoconnect().subscribe(other)
        #expect(String(describing: other.subscription!) == "ManualSubscription")
    }

    @Test func types() {
        let connectable = ManualPublisher<Int, Never>().makeConnectable()
        typealias Auto = Publishers.Autoconnect<Publishers.MakeConnectable<ManualPublisher<Int, Never>>>
        #expect(type(of: connectable.autoconnect()) == Auto.self)
        #expect(type(of: Publishers.Autoconnect(upstream: connectable)) == Auto.self)
    }

    @Test func concurrentSubscribersConnectOnce() {
        for _ in 0..<100 {
            let connectable = ConnectCounter(connectable: PassthroughSubject<Int, Never>().makeConnectable())
            let auto = connectable.autoconnect()
            let subscribers = (0..<8).map { _ in TestSubscriber<Int, Never>() }
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                auto.subscribe(subscribers[index])
            }
            #expect(connectable.connects == 1)
            #expect(connectable.disconnects == 0)
        }
    }

    @Test func concurrentSubscribeAndCancelDisconnectEveryConnection() {
        for _ in 0..<50 {
            let connectable = ConnectCounter(connectable: PassthroughSubject<Int, Never>().makeConnectable())
            let auto = connectable.autoconnect()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<5 {
                    let subscriber = TestSubscriber<Int, Never>()
                    auto.subscribe(subscriber)
                    subscriber.cancel()
                }
            }
            #expect(connectable.connects >= 1)
            #expect(connectable.connects == connectable.disconnects)
        }
    }

    @Test func aSubscriberArrivingReentrantlyWhileConnectingConnectsAgain() {
        // As Apple's: the first subscriber subscribes another from its receive(subscription:),
        // before the first connect(); both connect, the last connection replaces the first
        // (released, not cancelled) and counts one subscriber.
        let upstream = ManualPublisher<Int, Never>()
        let connectable = ConnectCounter(manual: upstream)
        let auto = connectable.autoconnect()
        let inner = TestSubscriber<Int, Never>()
        let outer = TestSubscriber<Int, Never>()
        outer.onSubscription = { _ in auto.subscribe(inner) }
        auto.subscribe(outer)
        #expect(connectable.connects == 2)
        #expect(connectable.disconnects == 0)
        outer.cancel()
        #expect(connectable.disconnects == 1)
        inner.cancel()
        #expect(connectable.disconnects == 1)
        #expect(upstream.subscription.cancelCount == 2)
    }

    @Test func aValueOrACompletionBeforeTheSubscriptionPassesThrough() {
        // As Apple's: the "Autoconnect" subscriber forwards whatever arrives, demand included.
        let upstream = HoldingConnectable()
        let subscriber = TestSubscriber<Int, TestError>(demandPerValue: .max(42))
        upstream.autoconnect().subscribe(subscriber)
        #expect(upstream.subscriber!.receive(7) == .max(42))
        upstream.subscriber!.receive(completion: .finished)
        #expect(subscriber.eventDescriptions == ["value(7)", "finished"])
    }

    @Test func everyCancelReachesTheUpstreamAndCountsOnce() {
        let upstream = ManualPublisher<Int, TestError>()
        let connectable = ConnectCounter(manual: upstream)
        let auto = connectable.autoconnect()
        let first = TestSubscriber<Int, TestError>()
        let second = TestSubscriber<Int, TestError>()
        auto.subscribe(first)
        auto.subscribe(second)
        let subscription = first.subscription!
        subscription.cancel()
        subscription.cancel()
        #expect(upstream.subscription.cancelCount == 2)  // as Apple's: each cancel goes upstream
        #expect(connectable.disconnects == 0)  // but counts once
        second.subscription!.cancel()
        #expect(connectable.disconnects == 1)
    }

    @Test func aCompletedSubscriberCountsUntilItCancels() {
        // As Apple's: the completion leaves the count alone; the cancel that follows it counts.
        let upstream = ManualPublisher<Int, TestError>()
        let connectable = ConnectCounter(manual: upstream)
        let subscriber = TestSubscriber<Int, TestError>()
        connectable.autoconnect().subscribe(subscriber)
        let subscription = subscriber.subscription!
        upstream.send(completion: .finished)
        #expect(subscriber.completion == .finished)
        #expect(connectable.disconnects == 0)
        subscription.cancel()
        #expect(connectable.disconnects == 1)
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func theUpstreamSeesAnAutoconnectSubscriber() {
        let upstream = HoldingConnectable()
        let auto = upstream.autoconnect()
        let subscriber = TestSubscriber<Int, TestError>()
        auto.subscribe(subscriber)
        let inner = upstream.erasedSubscriber!
        #expect((inner as? CustomStringConvertible)?.description == "Autoconnect")
        #expect((inner as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Autoconnect")
        #expect(!(inner is any Subscription))
        let mirror = (inner as? CustomReflectable)?.customMirror
        #expect(mirror?.children.map(\.label) == ["parent", "downstream"])
        #expect((mirror?.children.first?.value as AnyObject?) === auto)
        #expect((mirror?.children.dropFirst().first?.value as AnyObject?) === subscriber)
    }

    @Test func theSubscriptionShowsTheUpstreamSubscription() {
        // As Apple's: description, playground description and combineIdentifier are the upstream
        // subscription's; it has no mirror of its own.
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        ConnectCounter(manual: upstream).autoconnect().subscribe(subscriber)
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription) == "ManualSubscription")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
            == "ManualSubscription")
        #expect(subscription.combineIdentifier == upstream.subscription.combineIdentifier)
        #expect(!(subscription is CustomReflectable))
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.makeConnectable().autoconnect() }
        try await PublisherContract.verify {
            let subject = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(subject.makeConnectable().autoconnect()) {
                for value in 1...20 { subject.send(value) }
                subject.send(completion: .finished)
            }
        }
    }
}

@Suite("AutoconnectState")
struct AutoconnectStateTests {
    private final class Connection: Cancellable {
        func cancel() {}
    }

    private func isConnect(_ action: AutoconnectState.Action) -> Bool {
        if case .connect = action { return true }
        return false
    }

    private func disconnected(_ action: AutoconnectState.Action) -> Connection? {
        if case .disconnect(let connection) = action { return connection as? Connection }
        return nil
    }

    private func isNone(_ action: AutoconnectState.Action) -> Bool {
        if case .none = action { return true }
        return false
    }

    @Test func theFirstSubscriberConnectsAndLaterOnesCount() {
        var state = AutoconnectState()
        let connection = Connection()
        let first = state.subscriberArriving(on: 1)
        #expect(first)
        let (replaced, next) = state.connected(connection)
        #expect(replaced == nil && isNone(next))
        let second = state.subscriberArriving(on: 1)
        let third = state.subscriberArriving(on: 2)
        #expect(!second && !third)
        #expect(state.subscribers == 3)
        let left1 = state.subscriberLeft()
        let left2 = state.subscriberLeft()
        let left3 = state.subscriberLeft()
        #expect(isNone(left1) && isNone(left2))
        #expect(disconnected(left3) === connection)
        let done = state.disconnected(on: 2)
        #expect(isNone(done))
        let again = state.subscriberLeft()
        #expect(isNone(again))  // nothing connected: ignored
        let reconnects = state.subscriberArriving(on: 1)
        #expect(reconnects)
    }

    @Test func aSubscriberArrivingReentrantlyWhileConnectingConnectsTooAndTheLastConnectionWins() {
        // As Apple's: the second connection replaces the first (released, not cancelled) and
        // counts one subscriber.
        var state = AutoconnectState()
        let first = Connection()
        let second = Connection()
        let outer = state.subscriberArriving(on: 1)
        let inner = state.subscriberArriving(on: 1)
        #expect(outer && inner)
        let (none, innerNext) = state.connected(first)
        #expect(none == nil && isNone(innerNext))
        let (replaced, next) = state.connected(second)
        #expect(replaced as? Connection === first)
        #expect(isNone(next))
        #expect(state.subscribers == 1)
        let left = state.subscriberLeft()
        #expect(disconnected(left) === second)
    }

    @Test func aSubscriberFromAnotherThreadWhileConnectingIsCountedForTheConnection() {
        var state = AutoconnectState()
        let first = state.subscriberArriving(on: 1)
        let second = state.subscriberArriving(on: 2)
        let third = state.subscriberArriving(on: 3)
        #expect(first && !second && !third)
        let (replaced, next) = state.connected(Connection())
        #expect(replaced == nil && isNone(next))
        #expect(state.subscribers == 3)
    }

    @Test func everySubscriberLeavingWhileConnectingDisconnectsOnceConnected() {
        var state = AutoconnectState()
        let connection = Connection()
        let first = state.subscriberArriving(on: 1)
        let second = state.subscriberArriving(on: 2)
        #expect(first && !second)
        let left1 = state.subscriberLeft()
        let left2 = state.subscriberLeft()
        #expect(isNone(left1) && isNone(left2))
        let (_, next) = state.connected(connection)
        #expect(disconnected(next) === connection)
        #expect(state.connection == nil)
        let done = state.disconnected(on: 1)
        #expect(isNone(done))
    }

    @Test func aSubscriberArrivingWhileDisconnectingConnectsOnceDisconnected() {
        var state = AutoconnectState()
        let arrives = state.subscriberArriving(on: 1)
        #expect(arrives)
        _ = state.connected(Connection())
        let left = state.subscriberLeft()
        #expect(disconnected(left) != nil)
        let waits = state.subscriberArriving(on: 2)
        #expect(!waits)  // disconnecting: it waits
        let next = state.disconnected(on: 1)
        #expect(isConnect(next))
        let (_, after) = state.connected(Connection())
        #expect(isNone(after))
        #expect(state.subscribers == 1)
    }
}
