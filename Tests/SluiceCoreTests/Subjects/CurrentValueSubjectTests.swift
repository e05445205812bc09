import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("CurrentValueSubject")
struct CurrentValueSubjectTests {
    // MARK: The value

    @Test func holdsItsValue() {
        let subject = CurrentValueSubject<Int, Never>(3)
        #expect(subject.value == 3)
        subject.send(4)
        #expect(subject.value == 4)
        subject.value = 5
        #expect(subject.value == 5)
    }

    @Test func settingTheValuePublishesIt() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.value = 1
        subject.value = 2
        #expect(subscriber.values == [0, 1, 2])
    }

    @Test func anOptionalValueOfNilIsStillAValue() {
        let subject = CurrentValueSubject<Int?, Never>(nil)
        let subscriber = TestSubscriber<Int?, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [nil])
        subject.send(1)
        subject.send(nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [nil, nil])
        #expect(subject.value == nil)
    }

    // MARK: Delivery of the current value

    @Test func deliversTheCurrentValueOnSubscriptionWithDemand() {
        let subject = CurrentValueSubject<String, Never>("a")
        let subscriber = TestSubscriber<String, Never>()
        subject.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(CurrentValueSubject)", "value(a)"])
    }

    @Test func deliversTheCurrentValueOnFirstDemand() {
        let subject = CurrentValueSubject<Int, Never>(7)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [7])
        subscriber.request(.max(1))
        #expect(subscriber.values == [7])  // no new value yet: nothing to send
        subject.send(8)
        #expect(subscriber.values == [7, 8])
    }

    @Test func conflatesValuesSentWithoutDemand() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2])
        subject.value = 5
        #expect(subscriber.values == [2])
        subscriber.request(.max(5))
        #expect(subscriber.values == [2, 5])
        subject.send(6)
        #expect(subscriber.values == [2, 5, 6])
    }

    @Test func limitedDemandOneAtATime() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(subscriber)
        #expect(subscriber.values == [0])
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values == [0])
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 2])
        subscriber.request(.max(1))
        subject.send(3)
        #expect(subscriber.values == [0, 2, 3])
    }

    @Test func demandReturnedFromReceiveIsAdded() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        subject.subscribe(subscriber)
        for value in 1...3 { subject.send(value) }
        #expect(subscriber.values == [0, 1, 2, 3])
    }

    @Test func demandReturnedFromReceiveLetsOnlyLaterSendsThrough() {
        // As Apple's: with `.max(10)` initial demand, 100 sends made while the subscriber is inside
        // its tenth `receive` (which returns `.max(5)`) find no demand; the returned demand does
        // not deliver the value kept meanwhile (a `request` would), so exactly 10 values arrive,
        // and a later send goes through.
        let subject = CurrentValueSubject<Int, Never>(0)
        let inside = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        subscriber.onValue = { value, _ in
            guard value == 9 else { return .none }
            inside.signal()
            _ = resume.wait(timeout: .now() + 60)
            return .max(5)
        }
        subject.subscribe(subscriber)
        for value in 1...8 { subject.send(value) }
        let delivering = DispatchGroup()
        DispatchQueue.global().async(group: delivering) { subject.send(9) }
        #expect(inside.wait(timeout: .now() + 60) == .success)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<25 { subject.send(100 + thread * 25 + index) }
        }
        resume.signal()
        #expect(delivering.wait(timeout: .now() + 60) == .success)
        #expect(subscriber.values == Array(0...9))
        subject.send(200)
        #expect(subscriber.values == Array(0...9) + [200])
    }

    @Test func aRequestDeliversTheValueKeptForWantOfDemand() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values == [0])
        subscriber.request(.max(2))
        #expect(subscriber.values == [0, 2])
        subject.send(3)
        #expect(subscriber.values == [0, 2, 3])
    }

    @Test func eachSubscriberStartsFromTheValueCurrentWhenItSubscribed() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let first = TestSubscriber<Int, Never>()
        subject.subscribe(first)
        subject.send(1)
        let second = TestSubscriber<Int, Never>()
        subject.subscribe(second)
        subject.send(2)
        #expect(first.values == [0, 1, 2])
        #expect(second.values == [1, 2])
    }

    // MARK: Completion

    @Test func completionEndsTheStream() {
        let subject = CurrentValueSubject<Int, TestError>(0)
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        subject.send(completion: .failure(TestError(code: 8)))
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == [
            "subscription(CurrentValueSubject)", "value(0)", "failure(TestError(code: 8))",
        ])
    }

    @Test func completionReachesASubscriberWithoutDemandAndDropsThePendingValue() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        subject.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(CurrentValueSubject)", "finished"])
    }

    @Test func lateSubscriberReceivesOnlyTheCompletion() {
        let subject = CurrentValueSubject<Int, Never>(1)
        subject.send(completion: .finished)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "finished"])
    }

    @Test func valuesSentAfterCompletionAreNotPublished() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(completion: .finished)
        subject.send(2)
        subject.value = 3
        #expect(subscriber.values == [1])
    }

    // MARK: Cancellation and memory

    @Test func nothingArrivesAfterCancel() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subscriber.cancel()
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(CurrentValueSubject)", "value(0)"])
    }

    @Test func cancelBeforeDemandNeverDeliversTheCurrentValue() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        let subscription = subscriber.subscription!
        subscription.cancel()
        subscription.request(.max(1))
        #expect(subscriber.values == [])
    }

    @Test func releasesTheSubscriberOnCancelAndOnCompletion() {
        let subject = CurrentValueSubject<Int, Never>(0)
        weak var weakCancelled: TestSubscriber<Int, Never>?
        weak var weakCompleted: TestSubscriber<Int, Never>?
        do {
            let cancelled = TestSubscriber<Int, Never>()
            let completed = TestSubscriber<Int, Never>()
            weakCancelled = cancelled
            weakCompleted = completed
            subject.subscribe(cancelled)
            subject.subscribe(completed)
            cancelled.cancel()
        }
        #expect(weakCancelled == nil)
        #expect(weakCompleted != nil)
        subject.send(completion: .finished)
        #expect(weakCompleted == nil)
    }

    // MARK: Re-entrancy

    @Test func settingTheValueFromInsideTheSink() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var received: [Int] = []
        let cancellable = subject.sink { value in
            received.append(value)
            if value < 3 { subject.value = value + 1 }
        }
        #expect(received == [0, 1, 2, 3])
        #expect(subject.value == 3)
        _ = cancellable
    }

    @Test func readingTheValueFromInsideTheSink() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var seen: [Int] = []
        let cancellable = subject.sink { _ in seen.append(subject.value) }
        subject.send(1)
        #expect(seen == [0, 1])
        _ = cancellable
    }

    @Test func demandRequestedBeforeAReentrantCompletionGetsTheLatestValue() {
        // Inside receive(0): a value arrives without demand (kept as the latest), demand is
        // requested, then the subject completes. The demand came first, so the latest value must
        // be delivered before the completion.
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value == 0 {
                subject.send(1)
                subscriber.request(.max(1))
                subject.send(completion: .finished)
            }
            return .none
        }
        subject.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(CurrentValueSubject)", "value(0)", "value(1)", "finished"])
    }

    // MARK: Keeping the subject alive

    @Test func aSubscriptionKeepsItsSubjectAliveUntilCancelledOrCompleted() {
        // As Apple's: a producer holding the subject weakly still reaches its subscribers.
        weak var weakSubject: CurrentValueSubject<Int, Never>?
        let cancelled = TestSubscriber<Int, Never>()
        do {
            let subject = CurrentValueSubject<Int, Never>(0)
            weakSubject = subject
            subject.subscribe(cancelled)
        }
        weakSubject?.send(1)
        #expect(cancelled.values == [0, 1])
        cancelled.subscription?.cancel()
        #expect(weakSubject == nil)

        let completed = TestSubscriber<Int, Never>()
        do {
            let subject = CurrentValueSubject<Int, Never>(0)
            weakSubject = subject
            subject.subscribe(completed)
        }
        #expect(weakSubject != nil)
        weakSubject?.value = 2
        weakSubject?.send(completion: .finished)
        #expect(completed.eventDescriptions == ["subscription(CurrentValueSubject)", "value(0)", "value(2)", "finished"])
        #expect(weakSubject == nil)
    }

    // MARK: Upstream subscriptions

    @Test func sendSubscriptionRequestsUnlimited() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let upstream = ManualPublisher<Int, Never>.Subscription()
        subject.send(subscription: upstream)
        #expect(upstream.requests == [.unlimited])
    }

    @Test func deinitCancelsTheUpstreamSubscriptions() {
        let upstream = ManualPublisher<Int, Never>.Subscription()
        do {
            let subject = CurrentValueSubject<Int, Never>(0)
            subject.send(subscription: upstream)
        }
        #expect(upstream.requests == [.unlimited])
        #expect(upstream.cancelCount == 1)
    }

    @Test func settingTheValueAfterCompletionStoresItWithoutPublishing() {
        // As Apple's: the setter still stores; `send` after completion does not.
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(completion: .finished)
        subject.value = 42
        #expect(subject.value == 42)
        subject.send(7)
        #expect(subject.value == 42)
        #expect(subscriber.values == [0])
    }

    @Test func theCurrentValueIsDeliveredInsideReceiveSubscriptionWhenRequestedThere() {
        // As Apple's: requesting from inside receive(subscription:) delivers at once.
        let subject = CurrentValueSubject<Int, Never>(112)
        var log: [String] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                subscription.request(.unlimited)
                log.append("subscription")
            },
            receiveValue: { value in
                log.append("value \(value)")
                return .none
            })
        subject.subscribe(subscriber)
        #expect(log == ["value 112", "subscription"])
    }

    // MARK: Concurrency

    @Test func concurrentSendsAreDeliveredExactlyOnceWithoutOverlap() {
        let subject = CurrentValueSubject<Int, Never>(-1)
        let detector = OverlapDetector()
        let received = Shared<[Int]>([])
        let cancellable = subject.sink { value in
            detector.enter()
            received.mutate { $0.append(value) }
            detector.leave()
        }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<2_000 { subject.send(thread * 2_000 + index) }
        }
        let values = received.value
        #expect(detector.overlaps == 0)
        #expect(values.first == -1)
        #expect(values.count == 8_001)
        #expect(Set(values).count == 8_001)
        _ = cancellable
    }

    @Test func concurrentSendsWithLimitedDemandKeepAValueForTheNextRequest() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        subject.subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<500 { subject.send(thread * 500 + index + 1) }
        }
        #expect(subscriber.values.count == 10)
        subscriber.request(.max(1))
        let values = subscriber.values
        #expect(values.count == 11)
        #expect(Set(values).count == 11)  // the kept value is one that found no demand, not a repeat
    }

    // MARK: Descriptions

    @Test func subscriptionDescription() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        #expect(String(describing: subscriber.subscription!) == "CurrentValueSubject")
    }
}
