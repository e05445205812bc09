import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Multicast")
struct MulticastTests {
    private typealias Subject = PassthroughSubject<Int, TestError>

    @Test func everySubscriberSeesTheSameValuesFromOneUpstreamSubscription() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let first = TestSubscriber<Int, TestError>()
        let second = TestSubscriber<Int, TestError>()
        multicast.subscribe(first)
        multicast.subscribe(second)
        #expect(upstream.subscriberCount == 0)
        let connection = multicast.connect()
        #expect(upstream.subscriberCount == 1)
        #expect(upstream.subscription.requests == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        for subscriber in [first, second] {
            #expect(subscriber.eventDescriptions == ["subscription(Multicast)", "value(1)", "value(2)", "finished"])
        }
        connection.cancel()
    }

    @Test func failureReachesEverySubscriber() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let first = TestSubscriber<Int, TestError>()
        let second = TestSubscriber<Int, TestError>()
        multicast.subscribe(first)
        multicast.subscribe(second)
        let kept = multicast.connect()
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 7)))
        for subscriber in [first, second] {
            #expect(subscriber.values == [1])
            #expect(subscriber.completion == .failure(TestError(code: 7)))
        }
        withExtendedLifetime(kept) {}
    }

    @Test func nothingFlowsUntilConnect() {
        let multicast = (1...3).publisher.multicast { PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        multicast.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Multicast)"])
        let kept = multicast.connect()
        #expect(subscriber.eventDescriptions == [
            "subscription(Multicast)", "value(1)", "value(2)", "value(3)", "finished",
        ])
        withExtendedLifetime(kept) {}
    }

    @Test func theSubjectIsCreatedLazilyAndOnce() {
        let created = CallCounter()
        let multicast = ManualPublisher<Int, TestError>().multicast { () -> Subject in
            created.increment()
            return Subject()
        }
        #expect(created.value == 0)
        multicast.subscribe(TestSubscriber<Int, TestError>())
        #expect(created.value == 1)
        multicast.subscribe(TestSubscriber<Int, TestError>())
        let kept = multicast.connect()
        #expect(created.value == 1)
        withExtendedLifetime(kept) {}
    }

    @Test func connectAloneCreatesTheSubject() {
        let created = CallCounter()
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { () -> Subject in
            created.increment()
            return Subject()
        }
        let kept = multicast.connect()
        #expect(created.value == 1)
        #expect(upstream.subscriberCount == 1)
        let late = TestSubscriber<Int, TestError>()
        multicast.subscribe(late)
        upstream.send(5)
        #expect(late.values == [5])
        #expect(created.value == 1)
        withExtendedLifetime(kept) {}
    }

    @Test func multicastSubjectSharesTheGivenSubject() {
        let subject = Subject()
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast(subject: subject)
        let subscriber = TestSubscriber<Int, TestError>()
        multicast.subscribe(subscriber)
        subject.send(1)  // straight into the subject, before any connection
        let kept = multicast.connect()
        upstream.send(2)
        #expect(subscriber.values == [1, 2])
        #expect(multicast.createSubject() === subject)
        withExtendedLifetime(kept) {}
    }

    @Test func connectingTwiceSubscribesTwice() {
        // As in Apple's Combine: each connection feeds the subject.
        let upstream = PassthroughSubject<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let subscriber = TestSubscriber<Int, TestError>()
        multicast.subscribe(subscriber)
        let first = multicast.connect()
        let second = multicast.connect()
        #expect(ObjectIdentifier(first as AnyObject) != ObjectIdentifier(second as AnyObject))
        upstream.send(42)
        #expect(subscriber.values == [42, 42])
        first.cancel()
        upstream.send(7)
        #expect(subscriber.values == [42, 42, 7])
        second.cancel()
    }

    @Test func cancellingTheConnectionDisconnectsAndConnectReconnects() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let subscriber = TestSubscriber<Int, TestError>()
        multicast.subscribe(subscriber)
        let connection = multicast.connect()
        upstream.send(1)
        connection.cancel()
        connection.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(2)  // to the cancelled connection: ignored
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)

        let again = multicast.connect()
        #expect(ObjectIdentifier(again as AnyObject) != ObjectIdentifier(connection as AnyObject))
        #expect(upstream.subscriberCount == 2)
        upstream.send(3)
        #expect(subscriber.values == [1, 3])
        again.cancel()
    }

    @Test func theConnectionIsAnAnyCancellableThatDisconnectsWhenReleased() {
        // As in Apple's Combine: a connection that is not kept disconnects at once.
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let subscriber = TestSubscriber<Int, TestError>()
        multicast.subscribe(subscriber)
        #expect(multicast.connect() is AnyCancellable)
        #expect(upstream.subscriberCount == 1)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Multicast)"])
    }

    @Test func theConnectionDoesNotKeepTheSubjectAlive() {
        // As in Apple's Combine: with the multicast and the subject released (and no subscriber),
        // the subject goes, and cancels its upstream subscription as it goes; cancelling the
        // connection afterwards is harmless.
        let upstream = TrackedPublisher<Int, TestError>()
        weak var weakSubject: Subject?
        var subject: Subject? = Subject()
        weakSubject = subject
        let connection = upstream.multicast(subject: subject!).connect()
        #expect(upstream.aliveCount == 1)
        subject = nil
        #expect(weakSubject == nil)
        #expect(upstream.cancelCount == 1)
        connection.cancel()
        #expect(upstream.cancelCount == 1)
    }

    @Test func aSubscriberKeepsTheSubjectAliveUntilItCancels() {
        // The multicast released, its subscribers keep the subject (as Apple's subjects are kept by
        // their subscriptions), and values still flow while the connection is kept.
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        weak var weakSubject: Subject?
        var connection: (any Cancellable)?
        do {
            let subject = Subject()
            weakSubject = subject
            let multicast = upstream.multicast(subject: subject)
            multicast.subscribe(subscriber)
            connection = multicast.connect()
        }
        #expect(weakSubject != nil)
        upstream.send(1)
        #expect(subscriber.values == [1])
        subscriber.cancel()
        #expect(weakSubject == nil)
        #expect(upstream.subscription.cancelCount == 1)  // by the subject, as it went
        withExtendedLifetime(connection) {}
    }

    @Test func eachSubscriberHasItsOwnDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let limited = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        let unlimited = TestSubscriber<Int, TestError>()
        multicast.subscribe(limited)
        multicast.subscribe(unlimited)
        let kept = multicast.connect()
        upstream.send(1)
        upstream.send(2)  // no demand left: a passthrough subject drops it for `limited`
        limited.request(.max(1))
        upstream.send(3)
        upstream.send(4)
        #expect(limited.values == [1, 3])
        #expect(unlimited.values == [1, 2, 3, 4])
        #expect(upstream.subscription.requests == [.unlimited])
        withExtendedLifetime(kept) {}
    }

    @Test func demandReturnedFromReceiveCounts() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: .max(1))
        multicast.subscribe(subscriber)
        let kept = multicast.connect()
        for value in 1...4 { upstream.send(value) }
        #expect(subscriber.values == [1, 2, 3, 4])
        withExtendedLifetime(kept) {}
    }

    @Test func cancellingOneSubscriberLeavesTheOthersAndTheUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let leaving = TestSubscriber<Int, TestError>()
        let staying = TestSubscriber<Int, TestError>()
        multicast.subscribe(leaving)
        multicast.subscribe(staying)
        let kept = multicast.connect()
        upstream.send(1)
        leaving.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(leaving.values == [1])
        #expect(leaving.completion == nil)
        #expect(staying.values == [1, 2])
        #expect(staying.completion == .finished)
        #expect(upstream.subscription.cancelCount == 0)
        withExtendedLifetime(kept) {}
    }

    @Test func reentrantCancelAndRequestFromReceive() {
        let multicast = (1...9).publisher.multicast { PassthroughSubject<Int, Never>() }
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        multicast.subscribe(cancelling)
        multicast.subscribe(requesting)
        let kept = multicast.connect()
        #expect(cancelling.values == [1, 2])
        #expect(cancelling.completion == nil)
        #expect(requesting.values == Array(1...9))
        #expect(requesting.completion == .finished)
        withExtendedLifetime(kept) {}
    }

    @Test func reentrantConnectFromReceiveSubscribesAgain() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let subscriber = TestSubscriber<Int, TestError>()
        subscriber.onValue = { _, _ in
            _ = multicast.connect()
            return .none
        }
        multicast.subscribe(subscriber)
        let kept = multicast.connect()
        upstream.send(1)
        #expect(subscriber.values == [1])
        #expect(upstream.subscriberCount == 2)  // each connect() subscribes, as in Apple's Combine
        withExtendedLifetime(kept) {}
    }

    @Test func aPassthroughSubjectStartsTheUpstreamWhenASubscriberRequests() {
        // As Apple's: connected with no subscriber, the PassthroughSubject has asked the upstream
        // for nothing; the first subscriber's demand starts it.
        let multicast = (1...3).publisher.multicast { PassthroughSubject<Int, Never>() }
        let kept = multicast.connect()
        let late = TestSubscriber<Int, Never>()
        multicast.subscribe(late)
        #expect(late.eventDescriptions == ["subscription(Multicast)", "value(1)", "value(2)", "value(3)", "finished"])
        withExtendedLifetime(kept) {}
    }

    @Test func aLateSubscriberGetsTheCompletion() {
        let multicast = (1...3).publisher.multicast { PassthroughSubject<Int, Never>() }
        let kept = multicast.connect()
        let first = TestSubscriber<Int, Never>()
        multicast.subscribe(first)
        let late = TestSubscriber<Int, Never>()
        multicast.subscribe(late)
        #expect(late.eventDescriptions == ["subscription(Multicast)", "finished"])
        withExtendedLifetime(kept) {}
    }

    @Test func releasesTheSubscriber() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let kept = multicast.connect()
        #expect(!subscriberSurvives({ multicast.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ multicast.subscribe($0) }, end: { _ in upstream.send(completion: .finished) }))
        let failing = ManualPublisher<Int, TestError>()
        let other = failing.multicast { Subject() }
        let kept2 = other.connect()
        #expect(!subscriberSurvives({ other.subscribe($0) }, end: { _ in failing.send(completion: .failure(TestError())) }))
        withExtendedLifetime((kept, kept2)) {}
    }

    @Test func aDisconnectedMulticastReleasesTheUpstreamSubscription() {
        let upstream = TrackedPublisher<Int, TestError>()
        weak var weakMulticast: Publishers.Multicast<TrackedPublisher<Int, TestError>, Subject>?
        do {
            let multicast = upstream.multicast { Subject() }
            weakMulticast = multicast
            let subscriber = TestSubscriber<Int, TestError>()
            multicast.subscribe(subscriber)
            let connection = multicast.connect()
            #expect(upstream.aliveCount == 1)
            connection.cancel()
            #expect(upstream.cancelCount == 1)
            #expect(upstream.aliveCount == 0)
            subscriber.cancel()
        }
        #expect(weakMulticast == nil)
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, TestError>()
        let multicast = upstream.multicast { Subject() }
        let subscriber = TestSubscriber<Int, TestError>()
        multicast.subscribe(subscriber)
        #expect(String(describing: subscriber.subscription!) == "Multicast")
    }

    @Test func types() {
        let upstream = ManualPublisher<Int, TestError>()
        typealias Multicast = Publishers.Multicast<ManualPublisher<Int, TestError>, Subject>
        #expect(type(of: upstream.multicast { Subject() }) == Multicast.self)
        #expect(type(of: upstream.multicast(subject: Subject())) == Multicast.self)
        let multicast: any ConnectablePublisher<Int, TestError> = upstream.multicast { Subject() }
        _ = multicast
    }

    @Test func concurrentSubscribeAndConnectMakeOneSubjectAndAConnectionEach() {
        for _ in 0..<100 {
            let created = CallCounter()
            let subscribed = CallCounter()
            let upstream = Deferred { () -> PassthroughSubject<Int, Never> in
                subscribed.increment()
                return PassthroughSubject()
            }
            let multicast = upstream.multicast { () -> PassthroughSubject<Int, Never> in
                created.increment()
                return PassthroughSubject()
            }
            let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
            let connections = Shared<[AnyObject]>([])  // kept alive, so that identities stay distinct
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if index.isMultiple(of: 2) {
                    multicast.subscribe(subscribers[index / 2])
                } else {
                    let connection = multicast.connect()
                    connections.mutate { $0.append(connection as AnyObject) }
                }
            }
            #expect(created.value == 1)
            #expect(subscribed.value == 4)  // one subscription each connect(), as in Apple's Combine
            #expect(Set(connections.value.map(ObjectIdentifier.init)).count == 4)
            #expect(subscribers.allSatisfy { $0.subscriptionsReceived == 1 })
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            let multicast = (1...30).publisher.multicast { PassthroughSubject<Int, Never>() }
            let connection = Shared<(any Cancellable)?>(nil)  // kept: releasing it disconnects
            return PublisherContract.Fixture(multicast) { connection.value = multicast.connect() }
        }
        try await PublisherContract.verify {
            let source = PassthroughSubject<Int, TestError>()
            let multicast = source.multicast { Subject() }
            return PublisherContract.Fixture(multicast) {
                let connection = multicast.connect()
                defer { withExtendedLifetime(connection) {} }
                for value in 1...20 { source.send(value) }
                source.send(completion: .failure(TestError()))
            }
        }
    }
}
