import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.SwitchToLatest")
struct SwitchToLatestTests {
    // MARK: Values and completions

    @Test func republishesOnlyTheLatestPublisher() {
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        let publishers = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        publishers.switchToLatest().subscribe(subscriber)
        publishers.send(first)
        first.send(-3)
        first.send(-5)
        second.send(0)
        publishers.send(second)
        second.send(100)
        first.send(-7)
        second.send(200)
        #expect(subscriber.eventDescriptions == [
            "subscription(SwitchToLatest)", "value(-3)", "value(-5)", "value(100)", "value(200)",
        ])
    }

    @Test func synchronousInnersAreEachPublishedInFull() {
        let subscriber = TestSubscriber<Int, Never>()
        [[1, 2], [3], [4, 5]].publisher.map(\.publisher).switchToLatest().subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)
    }

    @Test func switchingCancelsThePreviousInnerAndIgnoresItsLateEvents() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first)
        first.send(1)
        upstream.send(second)
        #expect(first.subscription.cancelCount == 1)
        #expect(first.send(2) == .none)
        first.send(completion: .finished)
        second.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.completion == nil)  // the current inner has not finished
        second.send(completion: .finished)
        #expect(subscriber.values == [1, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func finishesWhenUpstreamFinishesAfterTheInner() {
        let upstream = PassthroughSubject<Just<Int>, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(Just(1))
        #expect(subscriber.completion == nil)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(SwitchToLatest)", "value(1)", "finished"])
    }

    @Test func emptyUpstreamFinishesAtOnce() {
        let subscriber = TestSubscriber<Int, Never>()
        Empty<Just<Int>, Never>().switchToLatest().subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(SwitchToLatest)", "finished"])
    }

    @Test func upstreamFailureCancelsTheInnerAndFailsOnce() {
        let upstream = ManualPublisher<ManualPublisher<Int, TestError>, TestError>()
        let inner = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        upstream.send(completion: .failure(TestError(code: 2)))
        inner.send(2)
        inner.send(completion: .failure(TestError(code: 3)))
        #expect(inner.subscription.cancelCount == 1)
        #expect(upstream.subscription.cancelCount == 0)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .failure(TestError(code: 2)))
        #expect(subscriber.events.count == 3)
    }

    @Test func innerFailureCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<ManualPublisher<Int, TestError>, TestError>()
        let inner = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(completion: .failure(TestError(code: 4)))
        upstream.send(completion: .failure(TestError(code: 5)))
        #expect(upstream.subscription.cancelCount == 1)
        #expect(inner.subscription.cancelCount == 0)
        #expect(subscriber.completion == .failure(TestError(code: 4)))
        #expect(subscriber.events.count == 2)
    }

    @Test func failureOfAReplacedInnerIsIgnored() {
        let upstream = ManualPublisher<ManualPublisher<Int, TestError>, TestError>()
        let first = ManualPublisher<Int, TestError>()
        let second = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first)
        upstream.send(second)
        first.send(completion: .failure(TestError()))
        second.send(4)
        #expect(subscriber.values == [4])
        #expect(subscriber.completion == nil)
    }

    // MARK: Demand

    @Test func asksUpstreamForUnlimited() {
        let upstream = ManualPublisher<Just<Int>, Never>()
        upstream.switchToLatest().subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        #expect(upstream.subscription.requests == [.unlimited])
    }

    @Test func outstandingDemandCarriesOverToTheNewInner() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first)
        #expect(first.subscription.requests == [.max(3)])
        first.send(1)
        upstream.send(second)
        #expect(second.subscription.requests == [.max(2)])
        subscriber.request(.max(4))
        #expect(second.subscription.requests == [.max(2), .max(4)])
        #expect(first.subscription.requests == [.max(3)])
    }

    @Test func innerWithoutOutstandingDemandIsNotAskedYet() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        #expect(inner.subscription.requests == [])
        subscriber.request(.max(2))
        #expect(inner.subscription.requests == [.max(2)])
    }

    @Test func limitedDemandIsNeverExceeded() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        Just((1...5).publisher).switchToLatest().subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandReturnedFromReceiveGoesToTheInner() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        #expect(inner.send(1) == .max(2))
        #expect(inner.send(2) == .max(2))
        #expect(subscriber.values == [1, 2])
    }

    // MARK: Cancellation

    @Test func cancellingCancelsUpstreamAndInnerAndStopsEvents() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        subscriber.cancel()
        inner.send(2)
        inner.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(inner.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantCancelFromReceive() {
        let inner = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        Just(inner).switchToLatest().subscribe(subscriber)
        for value in 1...4 { inner.send(value) }
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantRequestFromReceive() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        [(1...3).publisher, (4...6).publisher].publisher.switchToLatest().subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 4, 5, 6])
        #expect(subscriber.completion == .finished)
    }

    @Test func switchingFromInsideReceiveDropsTheOldInner() {
        let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, _ in
            if value == 1 {
                upstream.send(second)
                first.send(2)  // sent to a replaced inner: never delivered
                second.send(3)
            }
            return .none
        }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first)
        first.send(1)
        second.send(4)
        #expect(subscriber.values == [1, 3, 4])
    }

    // MARK: Concurrency

    @Test func valuesFromSeveralThreadsAreSerialised() {
        let threads = 4
        let perThread = 2_000
        let inner = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, _ in
            detector.enter()
            detector.leave()
            return .none
        }
        Just(inner).switchToLatest().subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for value in 0..<perThread { inner.send(thread * perThread + value) }
        }
        #expect(detector.overlaps == 0)
        #expect(subscriber.values.sorted() == Array(0..<(threads * perThread)))
        inner.send(completion: .finished)
        #expect(subscriber.completion == .finished)
    }

    @Test func aReplacedInnerIsNeverDeliveredAfterTheNewOnesFirstValue() {
        for _ in 0..<20 {
            let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let old = PassthroughSubject<Int, Never>()
            let new = PassthroughSubject<Int, Never>()
            let detector = OverlapDetector()
            let subscriber = TestSubscriber<Int, Never>()
            subscriber.onValue = { _, _ in
                detector.enter()
                detector.leave()
                return .none
            }
            upstream.switchToLatest().subscribe(subscriber)
            upstream.send(old)
            let started = Shared(false)
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                if thread == 0 {
                    for value in 1...2_000 {
                        old.send(-value)
                        if value == 10 { started.value = true }
                    }
                } else {
                    while !started.value {}
                    upstream.send(new)
                    for value in 1...100 { new.send(value) }
                }
            }
            #expect(detector.overlaps == 0)
            let values = subscriber.values
            guard let firstNew = values.firstIndex(where: { $0 > 0 }) else {
                Issue.record("the new inner's values must arrive")
                continue
            }
            #expect(values[firstNew...].allSatisfy { $0 > 0 })
            #expect(Array(values[firstNew...]) == Array(1...100))
        }
    }

    @Test func switchingRacingCancelNeverDeliversAfterCancelReturns() {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let inner = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            upstream.switchToLatest().subscribe(subscriber)
            upstream.send(inner)
            let countAtCancel = Shared(-1)
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                if thread == 0 {
                    for value in 0..<500 { inner.send(value) }
                } else {
                    subscriber.cancel()
                    countAtCancel.value = subscriber.values.count
                }
            }
            // At most the one value already on its way when cancel returned.
            #expect(subscriber.values.count <= countAtCancel.value + 1)
            #expect(subscriber.completion == nil)
        }
    }

    // MARK: Memory

    @Test func releasesTheSubscriber() {
        let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inner = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ upstream.switchToLatest().subscribe($0); upstream.send(inner) },
                                    end: { $0.cancel() }))
        #expect(!subscriberSurvives({ Just(Just(1)).switchToLatest().subscribe($0) }, end: { _ in }))
        let other = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let otherInner = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.switchToLatest().subscribe($0); other.send(otherInner) },
                                    end: { _ in
                                        other.send(completion: .finished)
                                        otherInner.send(completion: .finished)
                                    }))
        let failing = PassthroughSubject<PassthroughSubject<Int, TestError>, TestError>()
        let failingInner = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ failing.switchToLatest().subscribe($0); failing.send(failingInner) },
                                    end: { _ in failingInner.send(completion: .failure(TestError())) }))
    }

    // MARK: Descriptions and types

    @Test func theSubscriptionArrivesBeforeTheUpstreamIsSubscribed() {
        // As in Apple's Combine.
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onSubscription = { _ in #expect(upstream.subscriberCount == 0) }
        upstream.switchToLatest().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.unlimited])
    }

    @Test func cancelCancelsTheInnerThenTheUpstream() {
        // As in Apple's Combine.
        let order = Shared<[String]>([])
        let upstream = PassthroughSubject<AnyPublisher<Int, Never>, Never>()
        let inner = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.handleEvents(receiveCancel: { order.mutate { $0.append("upstream") } })
            .switchToLatest().subscribe(subscriber)
        upstream.send(inner.handleEvents(receiveCancel: { order.mutate { $0.append("inner") } }).eraseToAnyPublisher())
        subscriber.cancel()
        #expect(order.value == ["inner", "upstream"])
    }

    @Test func anInnerCompletingBeforeItsSubscriptionStopsTheProgram() async {
        // As in Apple's Combine.
        await #expect(processExitsWith: .failure) {
            struct CompletesFirst: Publisher {
                typealias Output = Int
                typealias Failure = Never
                func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                    subscriber.receive(completion: .finished)
                }
            }
            let upstream = PassthroughSubject<CompletesFirst, Never>()
            upstream.switchToLatest().subscribe(TestSubscriber<Int, Never>())
            upstream.send(CompletesFirst())
        }
    }

    @Test func anInnerValueBeyondTheDemandStopsTheProgram() async {
        // As in Apple's Combine (SwitchToLatestTests/testCrashesWhenReceivingUnwantedValueFromNestedPublisher).
        await #expect(processExitsWith: .failure) {
            let upstream = PassthroughSubject<ManualPublisher<Int, Never>, Never>()
            let inner = ManualPublisher<Int, Never>()
            upstream.switchToLatest().subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
            upstream.send(inner)
            inner.send(1)
        }
        await #expect(processExitsWith: .failure) {
            // Beyond the demand while another value is being delivered.
            let upstream = PassthroughSubject<ManualPublisher<Int, Never>, Never>()
            let inner = ManualPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
            subscriber.onValue = { value, _ in
                if value == 1 { inner.send(2) }
                return .none
            }
            upstream.switchToLatest().subscribe(subscriber)
            upstream.send(inner)
            inner.send(1)
        }
    }

    @Test func anInnerValueWithinTheDemandDuringADeliveryWaitsForIt() {
        let upstream = PassthroughSubject<ManualPublisher<Int, Never>, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        subscriber.onValue = { value, _ in
            if value == 1 { #expect(inner.send(2) == .none) }
            return .none
        }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        #expect(subscriber.values == [1, 2])
    }

    @Test func anInnerValueBeforeItsSubscriptionIsDeliveredAndGetsTheReturnedDemand() {
        // As in Apple's Combine: the value passes and the subscriber's demand is returned to it.
        let upstream = PassthroughSubject<LatePublisher<Int, Never>, Never>()
        let inner = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .unlimited, demandPerValue: .max(42))
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        #expect(inner.send(1) == .max(42))
        #expect(subscriber.values == [1])
    }

    @Test func aSubscriptionFromAnInnerThatCompletedIsLeftAlone() {
        // As in Apple's Combine: neither kept nor cancelled; a second one while it is current is
        // cancelled.
        let upstream = PassthroughSubject<LatePublisher<Int, Never>, Never>()
        let inner = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        let first = ManualPublisher<Int, Never>.Subscription()
        let second = ManualPublisher<Int, Never>.Subscription()
        inner.send(subscription: first)
        inner.send(subscription: second)
        #expect(first.requests == [] && first.cancelCount == 0)
        #expect(second.cancelCount == 1)
        inner.send(completion: .finished)
        let late = ManualPublisher<Int, Never>.Subscription()
        inner.send(subscription: late)
        #expect(late.requests == [] && late.cancelCount == 0)
        #expect(subscriber.eventDescriptions == ["subscription(SwitchToLatest)"])
    }

    @Test func anInnerSubscriptionArrivingAfterTheUpstreamFailedIsStillAskedForTheDemand() {
        // As in Apple's Combine: it is asked for the outstanding demand and not cancelled; nothing
        // it sends reaches the subscriber.
        let upstream = PassthroughSubject<LatePublisher<Int, TestError>, TestError>()
        let inner = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .unlimited)
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(subscriber.eventDescriptions == ["subscription(SwitchToLatest)", "failure(TestError(code: 1))"])
        let late = ManualPublisher<Int, TestError>.Subscription()
        inner.send(subscription: late)
        #expect(late.requests == [.unlimited])
        #expect(late.cancelCount == 0)
        inner.send(5)
        #expect(subscriber.eventDescriptions == ["subscription(SwitchToLatest)", "failure(TestError(code: 1))"])
    }

    @Test func theInnerSubscribersMirrorNamesItsParent() {
        let upstream = PassthroughSubject<CapturingPublisher, Never>()
        let inner = CapturingPublisher()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        let mirror = Mirror(reflecting: inner.subscriber.value!)
        #expect(mirror.children.map(\.label) == ["parentSubscription"])
        #expect(mirror.children.first.map { "\($0.value)" } == "\(subscriber.subscription!.combineIdentifier)")
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        #expect(upstream.subscriberDescription == "SwitchToLatest")
        #expect(inner.subscriberDescription == "SwitchToLatest")
        #expect(String(describing: subscriber.subscription!) == "SwitchToLatest")
    }

    @Test func types() {
        typealias SafeInner = PassthroughSubject<Int, Never>
        typealias FailingInner = PassthroughSubject<Int, TestError>
        let failingOfFailing = PassthroughSubject<FailingInner, TestError>()
        #expect(type(of: failingOfFailing.switchToLatest())
            == Publishers.SwitchToLatest<FailingInner, PassthroughSubject<FailingInner, TestError>>.self)
        let safeOfFailing = PassthroughSubject<FailingInner, Never>()
        #expect(type(of: safeOfFailing.switchToLatest())
            == Publishers.SwitchToLatest<FailingInner,
                Publishers.SetFailureType<PassthroughSubject<FailingInner, Never>, TestError>>.self)
        let safeOfSafe = PassthroughSubject<SafeInner, Never>()
        #expect(type(of: safeOfSafe.switchToLatest())
            == Publishers.SwitchToLatest<SafeInner, PassthroughSubject<SafeInner, Never>>.self)
        let failingOfSafe = PassthroughSubject<SafeInner, TestError>()
        #expect(type(of: failingOfSafe.switchToLatest())
            == Publishers.SwitchToLatest<Publishers.SetFailureType<SafeInner, TestError>,
                Publishers.Map<PassthroughSubject<SafeInner, TestError>,
                    Publishers.SetFailureType<SafeInner, TestError>>>.self)
        #expect(failingOfFailing.switchToLatest().upstream === failingOfFailing)
    }

    @Test func mixedFailureOverloadsWork() {
        let subscriber = TestSubscriber<Int, TestError>()
        Just(Fail<Int, TestError>(error: TestError(code: 6))).switchToLatest().subscribe(subscriber)
        #expect(subscriber.completion == .failure(TestError(code: 6)))
        let other = TestSubscriber<Int, TestError>()
        Result<Just<Int>, TestError>.Publisher(.success(Just(8))).switchToLatest().subscribe(other)
        #expect(other.values == [8])
        #expect(other.completion == .finished)
    }

    // MARK: Contract

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Just((1...30).publisher).switchToLatest() }
        try await PublisherContract.verify {
            (0..<5).publisher.map { base in (0..<10).publisher.map { base * 10 + $0 } }.switchToLatest()
        }
        try await PublisherContract.verify {
            let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let inners = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
            return PublisherContract.Fixture(upstream.switchToLatest()) {
                upstream.send(inners[0])
                for value in 0..<10 { inners[0].send(value) }
                upstream.send(inners[1])
                for value in 10..<20 {
                    inners[0].send(-value)
                    inners[1].send(value)
                }
                upstream.send(completion: .finished)
                inners[1].send(completion: .finished)
            }
        }
        try await PublisherContract.verify {
            let upstream = PassthroughSubject<PassthroughSubject<Int, TestError>, TestError>()
            let inner = PassthroughSubject<Int, TestError>()
            return PublisherContract.Fixture(upstream.switchToLatest()) {
                upstream.send(inner)
                for value in 0..<10 { inner.send(value) }
                inner.send(completion: .failure(TestError()))
            }
        }
    }
}

/// A publisher that keeps its subscriber and sends it nothing.
final class CapturingPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    let subscriber = Shared<(any Subscriber)?>(nil)
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        self.subscriber.value = subscriber
    }
}
