import Dispatch
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// A sequence that counts how many elements were read from it.
private struct CountingSequence: Sequence, Sendable {
    let count: Int
    let reads: Shared<Int>
    func makeIterator() -> AnyIterator<Int> {
        var next = 0
        return AnyIterator {
            guard next < count else { return nil }
            reads.mutate { $0 += 1 }
            defer { next += 1 }
            return next
        }
    }
}

@Suite("Publishers.Sequence")
struct SequenceTests {
    @Test func deliversElementsOnDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2, 3, 4].publisher.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completion == .finished)
    }

    @Test func finishesRightAfterTheLastElementWithoutExtraDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        [1, 2, 3].publisher.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription([1, 2, 3])", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func anEmptySequenceFinishesImmediatelyWithoutDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        [Int]().publisher.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "finished"])
    }

    @Test func unlimitedDemandDeliversEverything() {
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Sequence<ClosedRange<Int>, TestError>(sequence: 1...5).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandReturnedFromReceiveIsAdded() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...5).publisher.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)

        let two = TestSubscriber<Int, Never>(initialDemand: .max(1))
        two.onValue = { value, _ in value == 1 ? .max(2) : .none }
        (1...5).publisher.subscribe(two)
        #expect(two.values == [1, 2, 3])
    }

    @Test func readsElementsOnlyAsDemanded() {
        let reads = Shared(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        CountingSequence(count: 100, reads: reads).publisher.subscribe(subscriber)
        #expect(reads.value == 1)  // the first element, to know whether the sequence is empty
        subscriber.request(.max(2))
        #expect(subscriber.values == [0, 1])
        #expect(reads.value == 3)  // one ahead, to finish right after the last element
    }

    @Test func eachSubscriberIteratesAfresh() {
        let publisher = [1, 2].publisher
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        publisher.subscribe(first)
        publisher.subscribe(second)
        #expect(first.values == [1, 2])
        #expect(second.values == [1, 2])
    }

    // MARK: Cancellation and re-entrancy

    @Test func cancelStopsDeliveryWithoutCompletion() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        (1...5).publisher.subscribe(subscriber)
        subscriber.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test func cancelFromInsideReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() }
            return .none
        }
        (1...10).publisher.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func cancelFromInsideReceiveOnTheLastElementSuppressesTheCompletion() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() }
            return .none
        }
        [1, 2, 3].publisher.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription([1, 2, 3])", "value(1)", "value(2)", "value(3)"])
    }

    @Test func reentrantRequestsDoNotRecurse() {
        // Each value requests the next from inside receive; a recursive implementation would
        // overflow the stack long before 200 000 elements.
        let count = 200_000
        var received = 0
        var subscription: (any Subscription)?
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: {
                subscription = $0
                $0.request(.max(1))
            },
            receiveValue: { _ in
                received += 1
                subscription?.request(.max(1))
                return .none
            },
            receiveCompletion: { _ in subscription = nil })
        (0..<count).publisher.subscribe(subscriber)
        #expect(received == count)
        #expect(subscription == nil)
    }

    @Test func releasesTheSubscriberOnCompletionAndCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        var subscription: (any Subscription)?
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
            weakSubscriber = subscriber
            [1, 2].publisher.subscribe(subscriber)
            subscription = subscriber.subscription
        }
        #expect(weakSubscriber != nil)
        subscription?.request(.max(1))
        #expect(weakSubscriber == nil)

        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
            weakSubscriber = subscriber
            [1, 2].publisher.subscribe(subscriber)
            subscription = subscriber.subscription
        }
        subscription?.cancel()
        #expect(weakSubscriber == nil)
    }

    // MARK: Concurrency

    @Test func concurrentRequestsDeliverEachElementOnceInOrderWithoutOverlap() {
        let count = 4_000
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        let detector = OverlapDetector()
        subscriber.onValue = { _, _ in
            detector.enter()
            detector.leave()
            return .none
        }
        (0..<count).publisher.subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<(count / 4) { subscriber.request(.max(1)) }
        }
        #expect(detector.overlaps == 0)
        #expect(subscriber.values == Array(0..<count))
        #expect(subscriber.completion == .finished)
    }

    /// The delivering thread holds value 10 until a cancel made on another thread has returned;
    /// after that, at most the value already on its way arrives, and no completion.
    @Test func cancelFromAnotherThreadStopsDelivery() {
        for _ in 0..<10 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            let reachedTen = DispatchSemaphore(value: 0)
            let cancelled = DispatchSemaphore(value: 0)
            subscriber.onValue = { value, _ in
                if value == 10 {
                    reachedTen.signal()
                    cancelled.wait()
                }
                return .none
            }
            (0..<1_000_000).publisher.subscribe(subscriber)
            let canceller = Thread {
                reachedTen.wait()
                subscriber.cancel()
                cancelled.signal()
            }
            canceller.start()
            subscriber.request(.unlimited)
            #expect(subscriber.completion == nil)
            #expect(subscriber.values.count <= 12)
        }
    }

    @Test func zeroDemandIsIgnored() {
        // As Apple's: a request of `.none` neither traps nor sends anything, even re-entrantly.
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        [1, 2].publisher.subscribe(subscriber)
        subscriber.subscription!.request(.none)
        #expect(subscriber.values == [])
        subscriber.onValue = { _, subscriber in
            subscriber.subscription!.request(.none)
            return .none
        }
        subscriber.subscription!.request(.max(1))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    // MARK: Descriptions

    @Test func theSubscriptionDescribesItsSequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        (1...3).publisher.subscribe(subscriber)
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription) == "1...3")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "1...3")
        #expect(Mirror(reflecting: subscription).children.map(\.label) == ["sequence"])
    }

    @Test func anEndedSubscriptionIsDescribedAsSequenceAndMirrorsNoElements() {
        // As Apple's: "Sequence", and an empty `sequence`, once finished or cancelled.
        for cancel in [false, true] {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            (1...3).publisher.subscribe(subscriber)
            let subscription = subscriber.subscription!
            if cancel { subscription.cancel() } else { subscription.request(.unlimited) }
            #expect(String(describing: subscription) == "Sequence")
            let children = Array(Mirror(reflecting: subscription).children)
            #expect(children.map(\.label) == ["sequence"])
            #expect((children.first?.value as? [Int]) == [])
        }
    }

    // MARK: Types and fused operators

    @Test func publisherPropertyAndEquality() {
        let publisher = [1, 2].publisher
        #expect(type(of: publisher) == Publishers.Sequence<[Int], Never>.self)
        #expect(publisher.sequence == [1, 2])
        #expect(publisher == [1, 2].publisher)
        #expect(publisher != [2, 1].publisher)
    }

    @Test func mapIsEvaluatedAtOnceIntoASequence() {
        var calls = 0
        let mapped = [1, 2, 3].publisher.map { value -> String in
            calls += 1
            return "\(value)"
        }
        #expect(calls == 3)
        #expect(type(of: mapped) == Publishers.Sequence<[String], Never>.self)
        #expect(mapped.sequence == ["1", "2", "3"])
        let failing = Publishers.Sequence<ClosedRange<Int>, TestError>(sequence: 1...2).map { $0 * 2 }
        #expect(type(of: failing) == Publishers.Sequence<[Int], TestError>.self)
    }

    @Test func filterIsEvaluatedAtOnceIntoASequence() {
        let filtered = (1...6).publisher.filter { $0.isMultiple(of: 2) }
        #expect(type(of: filtered) == Publishers.Sequence<[Int], Never>.self)
        #expect(filtered.sequence == [2, 4, 6])
    }
}
