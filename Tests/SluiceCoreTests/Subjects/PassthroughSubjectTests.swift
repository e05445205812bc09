import Dispatch
@testable import SluiceCore
import Synchronization
import SluiceTesting
import Testing

@Suite("PassthroughSubject")
struct PassthroughSubjectTests {
    // MARK: Values and completion

    @Test func deliversValuesThenFinished() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "value(1)", "value(2)", "finished"])
    }

    @Test func deliversFailure() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 9)))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .failure(TestError(code: 9)))
    }

    @Test func ignoresEverythingAfterCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        subject.send(completion: .finished)
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "finished"])
    }

    @Test func completionReachesASubscriberWithoutDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "finished"])
    }

    @Test func lateSubscriberReceivesTheCompletionAtOnce() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(TestError(code: 2)))
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "failure(TestError(code: 2))"])
        let finished = PassthroughSubject<Int, Never>()
        finished.send(completion: .finished)
        let late = TestSubscriber<Int, Never>()
        finished.subscribe(late)
        #expect(late.eventDescriptions == ["subscription(Empty)", "finished"])
    }

    @Test func voidSubjectSend() {
        let subject = PassthroughSubject<Void, Never>()
        var count = 0
        let cancellable = subject.sink { count += 1 }
        subject.send()
        subject.send()
        #expect(count == 2)
        _ = cancellable
    }

    // MARK: Demand

    @Test func dropsValuesSentWithoutDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        subject.send(1)
        subscriber.request(.max(2))
        subject.send(2)
        subject.send(3)
        subject.send(4)  // demand exhausted: dropped, not buffered
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 3])
        subject.send(5)
        #expect(subscriber.values == [2, 3, 5])
    }

    @Test func limitedDemandOneAtATime() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(subscriber)
        // One unit of demand at a time, renewed after every other send: the value sent while the
        // demand is used up is dropped.
        for value in 1...6 {
            subject.send(value)
            if value.isMultiple(of: 2) { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values == [1, 3, 5])
    }

    @Test func demandReturnedFromReceiveIsAdded() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        subject.subscribe(subscriber)
        for value in 1...5 { subject.send(value) }
        #expect(subscriber.values == [1, 2, 3, 4, 5])

        let twoPerValue = TestSubscriber<Int, Never>(initialDemand: .max(1))
        twoPerValue.onValue = { value, _ in value == 1 ? .max(2) : .none }
        subject.subscribe(twoPerValue)
        for value in 1...5 { subject.send(value) }
        #expect(twoPerValue.values == [1, 2, 3])
    }

    @Test func eachSubscriberHasItsOwnDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let unlimited = TestSubscriber<Int, Never>()
        let one = TestSubscriber<Int, Never>(initialDemand: .max(1))
        let none = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(unlimited)
        subject.subscribe(one)
        subject.subscribe(none)
        subject.send(1)
        subject.send(2)
        #expect(unlimited.values == [1, 2])
        #expect(one.values == [1])
        #expect(none.values == [])
    }

    @Test func requestingFromInsideReceiveSubscriptionDeliversOnlyLaterValues() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subscriber.onSubscription = { $0.request(.max(2)) }
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(subscriber.values == [1, 2])
    }

    @Test func zeroDemandStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            subject.subscribe(subscriber)
            subscriber.request(.none)
        }
        if let result {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("must not be called with .none"), "stderr: \(message)")
        }
    }

    // MARK: Cancellation

    @Test func nothingArrivesAfterCancel() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(1)
        subscriber.subscription?.cancel()
        subject.send(2)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "value(1)"])
    }

    @Test func cancelIsIdempotentAndLeavesOtherSubscribersAlone() {
        let subject = PassthroughSubject<Int, Never>()
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        subject.subscribe(first)
        subject.subscribe(second)
        let subscription = first.subscription
        subscription?.cancel()
        subscription?.cancel()
        subject.send(1)
        #expect(first.values == [])
        #expect(second.values == [1])
    }

    @Test func cancelFromInsideReceive() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        subject.subscribe(subscriber)
        for value in 1...4 { subject.send(value) }
        subject.send(completion: .finished)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test func cancelFromInsideReceiveSubscription() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onSubscription = { $0.cancel() }
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)"])
    }

    @Test func releasesTheSubscriberOnCancel() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.subscribe(subscriber)
            subscriber.subscription?.cancel()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func releasesTheSubscriberOnCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.subscribe(subscriber)
        }
        #expect(weakSubscriber != nil)
        subject.send(completion: .finished)
        #expect(weakSubscriber == nil)
    }

    @Test func aReleasedCancellableReleasesTheSubscription() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakToken: Token?
        var cancellable: AnyCancellable?
        do {
            let token = Token()
            weakToken = token
            cancellable = subject.sink { token.value = $0 }
        }
        subject.send(1)
        #expect(weakToken?.value == 1)
        cancellable = nil
        #expect(weakToken == nil)
        _ = cancellable
    }

    // MARK: Re-entrancy

    @Test func reentrantSendIsQueuedUntilTheCurrentReceiveReturns() {
        let subject = PassthroughSubject<Int, Never>()
        var log: [String] = []
        let cancellable = subject.sink { value in
            log.append("begin \(value)")
            if value == 1 {
                subject.send(2)
                subject.send(3)
            }
            log.append("end \(value)")
        }
        subject.send(1)
        #expect(log == ["begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3"])
        _ = cancellable
    }

    @Test func reentrantCompletionFollowsTheQueuedValues() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, _ in
            if value == 1 {
                subject.send(2)
                subject.send(completion: .finished)
                subject.send(3)
            }
            return .none
        }
        subject.subscribe(subscriber)
        subject.send(1)
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "value(1)", "value(2)", "finished"])
    }

    @Test func reentrantRequestFromInsideReceive() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        subject.subscribe(subscriber)
        for value in 1...3 { subject.send(value) }
        #expect(subscriber.values == [1, 2, 3])
    }

    @Test func reentrantSubscribeFromInsideReceive() {
        let subject = PassthroughSubject<Int, Never>()
        let late = TestSubscriber<Int, Never>()
        var subscribed = false
        let cancellable = subject.sink { _ in
            if !subscribed {
                subscribed = true
                subject.subscribe(late)
            }
        }
        subject.send(1)
        subject.send(2)
        #expect(late.values == [2])
        _ = cancellable
    }

    @Test func reentrantCancelAndSubscribeOfOtherSubscribersFromInsideADelivery() {
        // As Apple's: deliveries in subscription order; a subscriber cancelled during a send gets
        // nothing more, even that send's value; one added during a send gets the next send's.
        let subject = PassthroughSubject<Int, Never>()
        let log = Shared<[String]>([])
        var cancellables: [String: AnyCancellable] = [:]
        func attach(_ name: String, _ extra: @escaping (Int) -> Void = { _ in }) {
            cancellables[name] = subject.sink { value in
                log.mutate { $0.append("\(name)\(value)") }
                extra(value)
            }
        }
        attach("a") { value in
            guard value == 1 else { return }
            cancellables["c"]?.cancel()  // not yet delivered this send: gets nothing
            attach("e")
        }
        attach("b")
        attach("c")
        attach("d") { value in
            guard value == 1 else { return }
            cancellables["b"]?.cancel()  // already delivered this send: nothing more from now on
        }
        subject.send(1)
        subject.send(2)
        #expect(log.value == ["a1", "b1", "d1", "a2", "d2", "e2"])
    }

    @Test func aSubscriberCancellingItselfDuringADeliveryGetsNothingMore() {
        let subject = PassthroughSubject<Int, Never>()
        let log = Shared<[String]>([])
        var cancellables: [AnyCancellable] = []
        for name in ["a", "b", "c"] {
            cancellables.append(subject.sink { value in
                log.mutate { $0.append("\(name)\(value)") }
                if name == "b" { cancellables[1].cancel() }
            })
        }
        subject.send(1)
        subject.send(2)
        #expect(log.value == ["a1", "b1", "c1", "a2", "c2"])
    }

    @Test func aSubscriberAddedDuringASendDoesNotGetThatValue() {
        let subject = PassthroughSubject<Int, Never>()
        let late = TestSubscriber<Int, Never>()
        var subscribed = false
        let first = subject.sink { _ in
            guard !subscribed else { return }
            subscribed = true
            subject.subscribe(late)
        }
        let second = TestSubscriber<Int, Never>()
        subject.subscribe(second)
        subject.send(1)
        #expect(late.values == [])
        #expect(second.values == [1])
        subject.send(2)
        #expect(late.values == [2])
        #expect(second.values == [1, 2])
        _ = first
    }

    @Test func tenThousandSubscribersCancelledInRandomOrderFromFourThreadsWhileSending() {
        // Every subscriber gets an unbroken prefix 0, 1, 2… of the values sent: all the sends that
        // had returned before its cancel began, none that began after its cancel returned. And
        // each value reaches its subscribers in subscription order (every delivery is stamped from
        // one counter).
        let count = 10_000
        let subject = PassthroughSubject<Int, Never>()
        let counters = StressCounters()
        let subscribers = (0..<count).map { _ in StampingSubscriber(counters: counters) }
        for subscriber in subscribers { subject.subscribe(subscriber) }
        var generator = SeededGenerator(seed: 19)
        let order = Array(0..<count).shuffled(using: &generator)
        DispatchQueue.concurrentPerform(iterations: 5) { thread in
            if thread == 0 {
                // Sends at least 50 values, and on while the cancellers are still at work.
                var value = 0
                while value < 50 || (counters.cancellersDone.load(ordering: .acquiring) < 4 && value < 1_000) {
                    counters.sendsStarted.store(value + 1, ordering: .sequentiallyConsistent)
                    subject.send(value)
                    counters.sendsReturned.store(value + 1, ordering: .sequentiallyConsistent)
                    value += 1
                }
            } else {
                for index in order[((thread - 1) * count / 4)..<(thread * count / 4)] {
                    let subscriber = subscribers[index]
                    subscriber.sendsReturnedBeforeCancel = counters.sendsReturned.load(ordering: .sequentiallyConsistent)
                    subscriber.subscription?.cancel()
                    subscriber.sendsStartedAfterCancel = counters.sendsStarted.load(ordering: .sequentiallyConsistent)
                }
                counters.cancellersDone.add(1, ordering: .releasing)
            }
        }
        #expect(subject.core.subscriptionCount == 0)
        var wrongValues = 0
        var outOfBounds = 0
        for subscriber in subscribers {
            if subscriber.values != Array(0..<subscriber.values.count) { wrongValues += 1 }
            if !(subscriber.sendsReturnedBeforeCancel...subscriber.sendsStartedAfterCancel).contains(subscriber.values.count) {
                outOfBounds += 1
            }
        }
        #expect(wrongValues == 0)
        #expect(outOfBounds == 0)
        let sent = counters.sendsReturned.load(ordering: .relaxed)
        var outOfOrder = 0
        for value in 0..<sent {
            var previous = -1
            for subscriber in subscribers where subscriber.stamps.count > value {
                if subscriber.stamps[value] <= previous { outOfOrder += 1 }
                previous = subscriber.stamps[value]
            }
        }
        #expect(outOfOrder == 0)
        #expect(sent >= 50)
    }

    // MARK: Keeping the subject alive

    @Test func aSubscriptionKeepsItsSubjectAliveUntilCancelled() {
        // As Apple's: a producer holding the subject weakly still reaches its subscribers.
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let subscriber = TestSubscriber<Int, Never>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            subject.subscribe(subscriber)
        }
        #expect(weakSubject != nil)
        weakSubject?.send(1)
        #expect(subscriber.values == [1])
        subscriber.subscription?.cancel()
        #expect(weakSubject == nil)
    }

    @Test func aSubscriptionLetsGoOfItsSubjectAtCompletion() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let subscriber = TestSubscriber<Int, Never>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            subject.subscribe(subscriber)
        }
        weakSubject?.send(completion: .finished)
        #expect(subscriber.completion == .finished)
        #expect(weakSubject == nil)
    }

    @Test func theSubjectStaysWhileAnySubscriptionRemains() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            subject.subscribe(first)
            subject.subscribe(second)
        }
        first.subscription?.cancel()
        #expect(weakSubject != nil)
        weakSubject?.send(1)
        #expect(second.values == [1])
        second.subscription?.cancel()
        #expect(weakSubject == nil)
    }

    @Test func upstreamsAreCancelledWhenTheLastSubscriptionLetsGoOfTheSubject() {
        let upstream = ManualPublisher<Int, Never>.Subscription()
        let subscriber = TestSubscriber<Int, Never>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            subject.subscribe(subscriber)
            subject.send(subscription: upstream)
        }
        #expect(upstream.cancelCount == 0)
        subscriber.subscription?.cancel()
        #expect(upstream.cancelCount == 1)
    }

    // MARK: Upstream subscriptions

    @Test func sendSubscriptionRequestsUnlimitedOnceASubscriberHasRequestedDemand() {
        // As Apple's: kept without a request until some subscriber requests demand; from then
        // on each subscription handed over is asked for `.unlimited` at once.
        let subject = PassthroughSubject<Int, Never>()
        let upstream = ManualPublisher<Int, Never>.Subscription()
        subject.send(subscription: upstream)
        #expect(upstream.requests == [])
        let waiting = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(waiting)
        #expect(upstream.requests == [])
        waiting.subscription!.request(.max(1))
        #expect(upstream.requests == [.unlimited])
        subject.subscribe(TestSubscriber<Int, Never>(initialDemand: .max(2)))
        #expect(upstream.requests == [.unlimited])
        let later = ManualPublisher<Int, Never>.Subscription()
        subject.send(subscription: later)
        #expect(later.requests == [.unlimited])
        #expect(upstream.cancelCount == 0)
    }

    @Test func deinitCancelsTheUpstreamSubscriptions() {
        let upstream = ManualPublisher<Int, Never>.Subscription()
        do {
            let subject = PassthroughSubject<Int, Never>()
            subject.send(subscription: upstream)
            subject.send(subscription: upstream)
            #expect(upstream.cancelCount == 0)
        }
        #expect(upstream.cancelCount == 2)
    }

    @Test func subscriptionMirror() {
        // As Apple's: parent, downstream, demand, subject (nil once cancelled or completed).
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        subject.subscribe(subscriber)
        subject.send(1)
        let subscription = subscriber.subscription!
        let live = Array(Mirror(reflecting: subscription).children)
        #expect(live.map(\.label) == ["parent", "downstream", "demand", "subject"])
        #expect(String(describing: live[0].value).contains("PassthroughSubject"))
        #expect(live[2].value as? Subscribers.Demand == .max(2))
        subscription.cancel()
        let ended = Array(Mirror(reflecting: subscription).children)
        #expect(ended.map { String(describing: $0.value) } == ["nil", "nil", "max(2)", "nil"])
    }

    @Test func sendSubscriptionAfterCompletionCancelsIt() {
        let subject = PassthroughSubject<Int, Never>()
        subject.send(completion: .finished)
        let upstream = ManualPublisher<Int, Never>.Subscription()
        subject.send(subscription: upstream)
        #expect(upstream.requests.isEmpty)
        #expect(upstream.cancelCount == 1)
    }

    // MARK: Concurrency

    @Test func concurrentSendsAreDeliveredExactlyOnceWithoutOverlap() {
        let subject = PassthroughSubject<Int, Never>()
        let threads = 4
        let perThread = 2_000
        let subscriberCount = 3
        var detectors: [OverlapDetector] = []
        var received: [Shared<[Int]>] = []
        var cancellables: [AnyCancellable] = []
        for _ in 0..<subscriberCount {
            let detector = OverlapDetector()
            let values = Shared<[Int]>([])
            detectors.append(detector)
            received.append(values)
            subject.sink { value in
                detector.enter()
                values.mutate { $0.append(value) }
                detector.leave()
            }.store(in: &cancellables)
        }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread { subject.send(thread * perThread + index) }
        }
        for index in 0..<subscriberCount {
            #expect(detectors[index].overlaps == 0)
            let values = received[index].value
            #expect(values.count == threads * perThread)
            #expect(Set(values).count == threads * perThread)
            // Each sending thread's values arrive in the order it sent them.
            for thread in 0..<threads {
                let ofThread = values.filter { $0 / perThread == thread }
                #expect(ofThread == ofThread.sorted())
            }
        }
    }

    @Test func concurrentSendsNeverExceedDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(100))
        subject.subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<1_000 { subject.send(thread * 1_000 + index) }
        }
        #expect(subscriber.values.count == 100)
        #expect(Set(subscriber.values).count == 100)
    }

    @Test func concurrentRequestsAndSends() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        let detector = OverlapDetector()
        subscriber.onValue = { _, _ in
            detector.enter()
            detector.leave()
            return .none
        }
        subject.subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<1_000 {
                if thread == 0 {
                    if index < 500 { subscriber.request(.max(1)) }
                } else {
                    subject.send(index)
                }
            }
        }
        #expect(detector.overlaps == 0)
        #expect(subscriber.values.count <= 500)
    }

    @Test func concurrentSubscribeCancelAndSend() {
        let subject = PassthroughSubject<Int, Never>()
        let stable = TestSubscriber<Int, Never>()
        subject.subscribe(stable)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            if thread == 0 {
                for index in 0..<2_000 { subject.send(index) }
            } else {
                for _ in 0..<300 {
                    let subscriber = TestSubscriber<Int, Never>()
                    subject.subscribe(subscriber)
                    subscriber.cancel()
                }
            }
        }
        #expect(stable.values == Array(0..<2_000))
        subject.send(completion: .finished)
        #expect(stable.completion == .finished)
    }

    @Test func concurrentCompletionIsDeliveredOnceAfterAcceptedValues() {
        for _ in 0..<20 {
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            subject.subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                if thread == 0 {
                    subject.send(completion: .finished)
                } else {
                    for index in 0..<200 { subject.send(index) }
                }
            }
            let events = subscriber.events
            let completions = events.filter { if case .completion = $0 { true } else { false } }
            #expect(completions.count == 1)
            if case .completion = events.last {} else { Issue.record("the completion is not the last event: \(events)") }
        }
    }

    // MARK: Descriptions

    @Test func subscriptionDescriptions() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        subject.subscribe(subscriber)
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription) == "PassthroughSubject")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "PassthroughSubject")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["parent", "downstream", "demand", "subject"])
        #expect(mirror.children.first { $0.label == "demand" }?.value as? Subscribers.Demand == .max(2))
    }
}

/// The counters of the many-subscribers stress test, shared by its threads.
private final class StressCounters: Sendable {
    /// Stamps each delivery.
    let clock = Atomic<Int>(0)
    let sendsStarted = Atomic<Int>(0)
    let sendsReturned = Atomic<Int>(0)
    let cancellersDone = Atomic<Int>(0)
}

/// Records the values it gets and, for each, a stamp from a counter shared by all its kind, so that
/// the order of deliveries across subscribers can be checked afterwards.
private final class StampingSubscriber: Subscriber, @unchecked Sendable {
    let counters: StressCounters
    // Written by the one delivering thread (values, stamps) or the one cancelling thread (the
    // bounds), read after both have been joined.
    var values: [Int] = []
    var stamps: [Int] = []
    var subscription: (any Subscription)?
    var sendsReturnedBeforeCancel = 0
    var sendsStartedAfterCancel = 0

    init(counters: StressCounters) { self.counters = counters }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        values.append(input)
        stamps.append(counters.clock.add(1, ordering: .relaxed).newValue)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}
