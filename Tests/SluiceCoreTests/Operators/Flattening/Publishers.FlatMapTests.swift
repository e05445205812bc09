import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.FlatMap")
struct FlatMapTests {
    // MARK: Values and completions

    @Test func mergesSynchronousInnersAndFinishes() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.flatMap { Just($0 * 10) }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(FlatMap)", "value(10)", "value(20)", "value(30)", "finished",
        ])
    }

    @Test func publishesEveryValueOfEachInner() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.flatMap { [$0, $0 * 10].publisher }.subscribe(subscriber)
        #expect(subscriber.values == [1, 10, 2, 20, 3, 30])
        #expect(subscriber.completion == .finished)
    }

    @Test func interleavesAsynchronousInnersInArrivalOrder() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = [PassthroughSubject<String, Never>(), PassthroughSubject<String, Never>()]
        let subscriber = TestSubscriber<String, Never>()
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        inners[1].send("b1")
        inners[0].send("a1")
        inners[1].send("b2")
        #expect(subscriber.values == ["b1", "a1", "b2"])
    }

    @Test func finishesOnlyWhenUpstreamAndEveryInnerHaveFinished() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.completion == nil)
        inners[0].send(completion: .finished)
        #expect(subscriber.completion == nil)
        inners[1].send(7)
        inners[1].send(completion: .finished)
        #expect(subscriber.values == [7])
        #expect(subscriber.completion == .finished)
    }

    @Test func emptyUpstreamFinishesAtOnce() {
        let subscriber = TestSubscriber<Int, Never>()
        Empty<Int, Never>().flatMap { Just($0) }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(FlatMap)", "finished"])
    }

    @Test func upstreamFailureCancelsInnersAndFailsOnce() {
        let upstream = ManualPublisher<Int, TestError>()
        let inner = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.flatMap { _ in inner }.subscribe(subscriber)
        upstream.send(1)
        inner.send(5)
        upstream.send(completion: .failure(TestError(code: 2)))
        inner.send(6)
        inner.send(completion: .failure(TestError(code: 3)))
        upstream.send(completion: .finished)
        #expect(inner.subscription.cancelCount == 1)
        #expect(upstream.subscription.cancelCount == 0)
        #expect(subscriber.eventDescriptions.count == 3)
        #expect(subscriber.values == [5])
        #expect(subscriber.completion == .failure(TestError(code: 2)))
    }

    @Test func innerFailureCancelsTheOtherInnersLeavesTheUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, TestError>()
        let inners = [ManualPublisher<Int, TestError>(), ManualPublisher<Int, TestError>()]
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        inners[0].send(completion: .failure(TestError(code: 4)))
        inners[1].send(9)
        inners[1].send(completion: .failure(TestError(code: 5)))
        upstream.send(2)
        upstream.send(completion: .finished)
        // As in Apple's Combine: the upstream is not cancelled (its later events are ignored).
        #expect(upstream.subscription.cancelCount == 0)
        #expect(inners[0].subscription.cancelCount == 0)
        #expect(inners[1].subscription.cancelCount == 1)
        #expect(subscriber.values == [])
        #expect(subscriber.completion == .failure(TestError(code: 4)))
        #expect(subscriber.eventDescriptions.count == 2)
    }

    // MARK: Demand

    @Test func requestsMaxPublishersFromUpstreamOnSubscription() {
        let unlimited = ManualPublisher<Int, Never>()
        unlimited.flatMap { Just($0) }.subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        #expect(unlimited.subscription.requests == [.unlimited])
        let limited = ManualPublisher<Int, Never>()
        limited.flatMap(maxPublishers: .max(3)) { Just($0) }.subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        #expect(limited.subscription.requests == [.max(3)])
    }

    @Test func maxOneSubscribesOneInnerAtATime() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<3).map { _ in ManualPublisher<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .max(1)) { inners[$0] }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        upstream.send(0)
        #expect(inners[0].subscriberCount == 1)
        inners[0].send(1)
        #expect(upstream.subscription.requests == [.max(1)])
        inners[0].send(completion: .finished)
        #expect(upstream.subscription.requests == [.max(1), .max(1)])
        upstream.send(1)
        inners[1].send(2)
        inners[1].send(completion: .finished)
        #expect(upstream.subscription.requests == [.max(1), .max(1), .max(1)])
        #expect(subscriber.values == [1, 2])
    }

    @Test func maxTwoAsksForAnotherPublisherAsEachFinishes() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<4).map { _ in ManualPublisher<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .max(2)) { inners[$0] }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        upstream.send(0)
        upstream.send(1)
        #expect(inners[0].subscriberCount == 1 && inners[1].subscriberCount == 1)
        inners[1].send(completion: .finished)
        #expect(upstream.subscription.requests == [.max(2), .max(1)])
        upstream.send(2)
        inners[0].send(completion: .finished)
        #expect(upstream.subscription.requests == [.max(2), .max(1), .max(1)])
        upstream.send(completion: .finished)
        #expect(subscriber.completion == nil)
        inners[2].send(completion: .finished)
        #expect(subscriber.completion == .finished)
    }

    @Test func maxPublishersLimitsHowManyPublishersAreTaken() {
        let upstream = PassthroughSubject<Int, Never>()
        var inners: [PassthroughSubject<Int, Never>] = []
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .max(2)) { _ -> PassthroughSubject<Int, Never> in
            let inner = PassthroughSubject<Int, Never>()
            inners.append(inner)
            return inner
        }
        .subscribe(subscriber)
        // The subject drops values sent without demand: only two are taken while two inners live.
        for value in 0..<5 { upstream.send(value) }
        #expect(inners.count == 2)
        inners[0].send(completion: .finished)
        upstream.send(5)
        upstream.send(6)
        #expect(inners.count == 3)
    }

    @Test func limitedDemandAsksEachInnerForOneValueAtATime() {
        let upstream = ManualPublisher<Int, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.flatMap { _ in inner }.subscribe(subscriber)
        upstream.send(0)
        #expect(inner.subscription.requests == [.max(1)])
        #expect(inner.send(1) == .max(1))
        #expect(inner.send(2) == .none)  // no downstream demand: waits
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(inner.subscription.requests == [.max(1), .max(1)])
    }

    @Test func unlimitedDemandAsksInnersForUnlimited() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = [ManualPublisher<Int, Never>(), ManualPublisher<Int, Never>()]
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        upstream.send(0)
        subscriber.request(.unlimited)
        upstream.send(1)
        #expect(inners[0].subscription.requests == [.max(1), .unlimited])
        #expect(inners[1].subscription.requests == [.unlimited])
        #expect(inners[1].send(1) == .none)
    }

    @Test func demandReturnedAsUnlimitedRaisesTheInners() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = [ManualPublisher<Int, Never>(), ManualPublisher<Int, Never>()]
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, _ in .unlimited }
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        #expect(inners[0].send(1) == .none)  // raised instead of replenished
        #expect(inners[0].subscription.requests == [.max(1), .unlimited])
        #expect(inners[1].subscription.requests == [.max(1), .unlimited])
        #expect(inners[1].send(2) == .none)
        #expect(inners[0].send(3) == .none)
        #expect(subscriber.values == [1, 2, 3])
    }

    @Test func valuesBeyondDemandWaitAndCompletionWaitsForThem() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.flatMap { [$0, $0 * 10].publisher }.subscribe(subscriber)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == nil)
        for expected in 2...6 {
            subscriber.request(.max(1))
            #expect(subscriber.values.count == expected)
        }
        #expect(subscriber.completion == .finished)
        #expect(subscriber.values.sorted() == [1, 2, 3, 10, 20, 30])
        // Each inner's own values stay in order.
        for base in 1...3 {
            let own = subscriber.values.filter { $0 == base || $0 == base * 10 }
            #expect(own == [base, base * 10])
        }
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...4).publisher.flatMap { [$0, -$0].publisher }.subscribe(subscriber)
        #expect(subscriber.values.count == 8)
        #expect(subscriber.completion == .finished)
    }

    // MARK: Cancellation

    @Test func cancellingCancelsUpstreamAndInnersAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = [ManualPublisher<Int, Never>(), ManualPublisher<Int, Never>()]
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        inners[0].send(1)
        subscriber.cancel()
        inners[0].send(2)
        inners[1].send(3)
        inners[1].send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(inners[0].subscription.cancelCount == 1)
        #expect(inners[1].subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func innerArrivingAfterCancelIsCancelled() {
        let upstream = ManualPublisher<Int, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { _ in inner }.subscribe(subscriber)
        subscriber.cancel()
        upstream.send(0)  // a late value from the upstream: no inner subscription must survive
        #expect(inner.subscriberCount == 0)
        #expect(subscriber.values == [])
    }

    @Test func reentrantCancelFromReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() }
            return .none
        }
        (1...9).publisher.flatMap { Just($0) }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantRequestFromReceive() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        (1...5).publisher.flatMap { [$0, $0].publisher }.subscribe(subscriber)
        #expect(subscriber.values.count == 10)
        #expect(subscriber.completion == .finished)
    }

    @Test func sinkSendingIntoUpstreamFromReceiveKeepsOrder() {
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, _ in
            if value < 5 { upstream.send(value + 1) }
            return .none
        }
        upstream.flatMap { Just($0) }.subscribe(subscriber)
        upstream.send(0)
        #expect(subscriber.values == [0, 1, 2, 3, 4, 5])
    }

    @Test func innerSendingIntoAnotherInnerFromReceiveKeepsOrder() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, _ in
            if value == 1 { inners[1].send(2) }
            return .none
        }
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        inners[0].send(1)
        inners[0].send(3)
        #expect(subscriber.values == [1, 2, 3])
    }

    // MARK: Concurrency

    @Test func innersSendingFromSeveralThreadsAreSerialisedAndComplete() {
        let threads = 4
        let perThread = 2_000
        let upstream = PassthroughSubject<Int, Never>()
        let inners = (0..<threads).map { _ in PassthroughSubject<Int, Never>() }
        let detector = OverlapDetector()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, _ in
            detector.enter()
            detector.leave()
            return .none
        }
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        for index in 0..<threads { upstream.send(index) }
        upstream.send(completion: .finished)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for value in 0..<perThread { inners[thread].send(thread * perThread + value) }
            inners[thread].send(completion: .finished)
        }
        #expect(detector.overlaps == 0)
        let values = subscriber.values
        #expect(values.sorted() == Array(0..<(threads * perThread)))
        for thread in 0..<threads {
            let own = values.filter { $0 / perThread == thread }
            #expect(own == Array((thread * perThread)..<((thread + 1) * perThread)))
        }
        #expect(subscriber.completion == .finished)
        #expect(subscriber.eventDescriptions.filter { $0 == "finished" }.count == 1)
    }

    @Test func limitedDemandFromSeveralThreadsNeverOverDelivers() {
        for _ in 0..<20 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            let detector = OverlapDetector()
            subscriber.onValue = { _, _ in
                detector.enter()
                detector.leave()
                return .none
            }
            (0..<8).publisher.flatMap { base in (0..<50).publisher.map { base * 50 + $0 } }.subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<50 { subscriber.request(.max(1)) }
            }
            #expect(detector.overlaps == 0)
            #expect(subscriber.values.count == 200)
            #expect(Set(subscriber.values).count == 200)
            subscriber.request(.max(200))
            #expect(subscriber.values.sorted() == Array(0..<400))
            #expect(subscriber.completion == .finished)
        }
    }

    @Test func innerFailureRacingValuesFailsOnceWithoutOverlap() {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, TestError>()
            let inners = [PassthroughSubject<Int, TestError>(), PassthroughSubject<Int, TestError>()]
            let detector = OverlapDetector()
            let subscriber = TestSubscriber<Int, TestError>()
            subscriber.onValue = { _, _ in
                detector.enter()
                detector.leave()
                return .none
            }
            subscriber.onCompletion = { _, _ in
                detector.enter()
                detector.leave()
            }
            upstream.flatMap { inners[$0] }.subscribe(subscriber)
            upstream.send(0)
            upstream.send(1)
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                if thread == 0 {
                    for value in 0..<200 { inners[0].send(value) }
                } else {
                    for value in 0..<50 { inners[1].send(value) }
                    inners[1].send(completion: .failure(TestError(code: 9)))
                }
            }
            #expect(detector.overlaps == 0)
            let events = subscriber.events
            #expect(events.filter { if case .completion = $0 { true } else { false } }.count == 1)
            if case .completion(let completion)? = events.last {
                #expect(completion == .failure(TestError(code: 9)))
            } else {
                Issue.record("the failure must be the last event")
            }
        }
    }

    // MARK: Memory

    @Test func aValueSentDuringADeliveryWithinTheDemandGetsItsReplenishmentReturned() {
        // As in Apple's Combine (FlatMapTests/testChildValueReceivedWhileSendingValue): each inner
        // is asked for one value once; the value sent from inside `receive` gets `.max(1)` back
        // from its `receive` rather than a new request.
        let upstream = PassthroughSubject<ManualPublisher<Int, Never>, Never>()
        let (first, second) = (ManualPublisher<Int, Never>(), ManualPublisher<Int, Never>())
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        var returned: [Subscribers.Demand] = []
        subscriber.onValue = { value, _ in
            if value == 666 { returned.append(second.send(777)) }
            return .none
        }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(first)
        upstream.send(second)
        #expect(first.send(666) == .max(1))
        #expect(returned == [.max(1)])
        #expect(subscriber.values == [666, 777])
        #expect(first.subscription.requests == [.max(1)])
        #expect(second.subscription.requests == [.max(1)])
    }

    @Test func anInnerFinishingAgainAsksTheUpstreamAgain() {
        // As in Apple's Combine (FlatMapTests/testOuterLockReentrance): with a limited
        // maxPublishers, each `.finished` of an inner asks the upstream for one more publisher,
        // even a repeated one sent from inside that request.
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.flatMap(maxPublishers: .max(1)) { $0 }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        var depth = 3
        upstream.subscription.onRequest = { _ in
            guard depth > 0 else { return }
            depth -= 1
            inner.send(completion: .finished)
        }
        upstream.send(inner)
        inner.send(completion: .finished)
        #expect(upstream.subscription.requests == Array(repeating: .max(1), count: 5))
        #expect(inner.subscription.requests == [.max(1)])
        #expect(subscriber.eventDescriptions == ["subscription(FlatMap)"])
    }

    @Test func anUpstreamCompletionSentWhileItsFailureCancelsTheInnersStopsTheProgram() async {
        // As in Apple's Combine (FlatMapTests/testCrashesWhenUpstreamFailsDuringChildCancellation).
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<LatePublisher<Int, TestError>, TestError>()
            let inner = LatePublisher<Int, TestError>()
            upstream.flatMap { $0 }.subscribe(TestSubscriber<Int, TestError>())
            upstream.send(inner)
            inner.send(subscription: CancelHook { upstream.send(completion: .failure(TestError())) })
            upstream.send(completion: .failure(TestError()))
        }
    }

    @Test func anUpstreamCompletionAfterItsFailureIsIgnored() {
        let upstream = ManualPublisher<ManualPublisher<Int, TestError>, TestError>()
        let inner = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(inner)
        upstream.send(completion: .failure(TestError(code: 1)))
        upstream.send(completion: .failure(TestError(code: 2)))
        #expect(inner.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(FlatMap)", "failure(TestError(code: 1))"])
    }

    @Test func releasesTheSubscriber() {
        let upstream = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ upstream.flatMap { _ in inner }.subscribe($0); upstream.send(0) },
                                    end: { $0.cancel() }))
        #expect(!subscriberSurvives({ (1...3).publisher.flatMap { Just($0) }.subscribe($0) }, end: { _ in }))
        let other = PassthroughSubject<Int, Never>()
        let otherInner = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.flatMap { _ in otherInner }.subscribe($0); other.send(0) },
                                    end: { _ in
                                        other.send(completion: .finished)
                                        otherInner.send(completion: .finished)
                                    }))
        let failing = PassthroughSubject<Int, TestError>()
        let failingInner = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ failing.flatMap { _ in failingInner }.subscribe($0); failing.send(0) },
                                    end: { _ in failingInner.send(completion: .failure(TestError())) }))
    }

    @Test func releasesTheInnersAfterCancel() {
        weak var weakInner: PassthroughSubject<Int, Never>?
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        do {
            let inner = PassthroughSubject<Int, Never>()
            weakInner = inner
            upstream.flatMap { _ in inner }.subscribe(subscriber)
            upstream.send(0)
        }
        subscriber.cancel()
        #expect(weakInner == nil)
    }

    // MARK: Descriptions and types

    @Test func theSubscriptionArrivesBeforeTheUpstreamIsSubscribed() {
        // As in Apple's Combine.
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onSubscription = { _ in #expect(upstream.subscriberCount == 0) }
        upstream.flatMap(maxPublishers: .max(2)) { Just($0) }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
    }

    @Test func mirrors() {
        // As Apple's: the subscription has no children, an inner subscriber names its parent.
        let upstream = PassthroughSubject<Int, Never>()
        let inner = CapturingPublisher()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { _ in inner }.subscribe(subscriber)
        upstream.send(0)
        #expect(Mirror(reflecting: subscriber.subscription!).children.isEmpty)
        let mirror = Mirror(reflecting: inner.subscriber.value!)
        #expect(mirror.children.map(\.label) == ["parentSubscription"])
        #expect(mirror.children.first.map { "\($0.value)" } == "\(subscriber.subscription!.combineIdentifier)")
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let inner = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { _ in inner }.subscribe(subscriber)
        upstream.send(0)
        #expect(upstream.subscriberDescription == "FlatMap")
        #expect(inner.subscriberDescription == "FlatMap")
        #expect(String(describing: subscriber.subscription!) == "FlatMap")
    }

    @Test func storedProperties() {
        let upstream = PassthroughSubject<Int, Never>()
        let flatMap = upstream.flatMap(maxPublishers: .max(4)) { Just($0 + 1) }
        #expect(flatMap.upstream === upstream)
        #expect(flatMap.maxPublishers == .max(4))
        #expect(flatMap.transform(1).output == 2)
        let made = Publishers.FlatMap(upstream: upstream, maxPublishers: .unlimited) { Just($0) }
        #expect(made.maxPublishers == .unlimited)
    }

    @Test func types() {
        typealias Safe = PassthroughSubject<Int, Never>
        typealias Failing = PassthroughSubject<Int, TestError>
        let safe = Safe()
        let failing = Failing()
        // Same failure.
        #expect(type(of: failing.flatMap { _ in Failing() }) == Publishers.FlatMap<Failing, Failing>.self)
        // Never upstream, failing inner.
        #expect(type(of: safe.flatMap { _ in Failing() })
            == Publishers.FlatMap<Failing, Publishers.SetFailureType<Safe, TestError>>.self)
        // Both Never.
        #expect(type(of: safe.flatMap { Just($0) }) == Publishers.FlatMap<Just<Int>, Safe>.self)
        // Failing upstream, Never inner.
        #expect(type(of: failing.flatMap { Just($0) })
            == Publishers.FlatMap<Publishers.SetFailureType<Just<Int>, TestError>, Failing>.self)
    }

    @Test func mixedFailureOverloadsWork() {
        let subscriber = TestSubscriber<Int, TestError>()
        (1...3).publisher.flatMap { value -> AnyPublisher<Int, TestError> in
            value == 3 ? Fail(error: TestError(code: 3)).eraseToAnyPublisher() : Just(value).setFailureType(to: TestError.self).eraseToAnyPublisher()
        }
        .subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .failure(TestError(code: 3)))
        let other = TestSubscriber<Int, TestError>()
        (1...3).publisher.setFailureType(to: TestError.self).flatMap { Just($0 * 2) }.subscribe(other)
        #expect(other.values == [2, 4, 6])
        #expect(other.completion == .finished)
    }

    // MARK: Contract

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.flatMap { Just($0) } }
        try await PublisherContract.verify { (1...10).publisher.flatMap { [$0, $0 + 100, $0 + 200].publisher } }
        try await PublisherContract.verify {
            (1...10).publisher.flatMap(maxPublishers: .max(2)) { [$0, -$0].publisher }
        }
        try await PublisherContract.verify {
            (1...20).publisher.setFailureType(to: TestError.self).flatMap { value -> AnyPublisher<Int, TestError> in
                value == 12 ? Fail(error: TestError()).eraseToAnyPublisher()
                    : Just(value).setFailureType(to: TestError.self).eraseToAnyPublisher()
            }
        }
        try await PublisherContract.verify {
            let upstream = PassthroughSubject<Int, Never>()
            let inners = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
            return PublisherContract.Fixture(upstream.flatMap { inners[$0] }) {
                upstream.send(0)
                upstream.send(1)
                for value in 0..<20 { inners[value % 2].send(value) }
                inners[0].send(completion: .finished)
                upstream.send(completion: .finished)
                inners[1].send(completion: .finished)
            }
        }
    }
}

/// A subscription that runs `onCancel` when cancelled (e.g. to misbehave re-entrantly).
private final class CancelHook: Subscription, @unchecked Sendable {
    let onCancel: () -> Void
    init(_ onCancel: @escaping () -> Void) { self.onCancel = onCancel }
    func request(_ demand: Subscribers.Demand) {}
    func cancel() { onCancel() }
}

// MARK: Many inners

extension FlatMapTests {
    @Test func manyInnersFinishingInRandomOrderFinishOnlyAfterTheLast() {
        let count = 2_000
        let upstream = PassthroughSubject<Int, Never>()
        let inners = (0..<count).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        for index in 0..<count { upstream.send(index) }
        upstream.send(completion: .finished)
        var generator = SeededGenerator(seed: 19)
        let order = Array(0..<count).shuffled(using: &generator)
        for index in order {
            #expect(subscriber.completion == nil)
            inners[index].send(index)
            inners[index].send(completion: .finished)
            inners[index].send(-1)  // after its finish: nothing
        }
        #expect(subscriber.values == order)
        #expect(subscriber.completion == .finished)
    }

    @Test func slotsOfFinishedInnersAreReusedByLaterInnersWithoutMixingThemUp() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = (0..<3_000).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        // 1,000 live, every other one finishes, 2,000 more arrive (into the freed slots first).
        for index in 0..<1_000 { upstream.send(index) }
        for index in stride(from: 0, to: 1_000, by: 2) { inners[index].send(completion: .finished) }
        for index in 1_000..<3_000 { upstream.send(index) }
        var expected: [Int] = []
        for index in stride(from: 2_999, through: 0, by: -1) {
            inners[index].send(index)  // finished inners: nothing
            if index >= 1_000 || index % 2 == 1 { expected.append(index) }
        }
        #expect(subscriber.values == expected)
        for index in 0..<3_000 { inners[index].send(completion: .finished) }
        #expect(subscriber.completion == nil)  // the upstream has not finished
        upstream.send(completion: .finished)
        #expect(subscriber.completion == .finished)
    }

    @Test func limitedPublishersAskForOneMorePublisherPerFinishedInner() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<1_000).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .max(10)) { inners[$0] }.subscribe(subscriber)
        for index in 0..<10 { upstream.send(index) }
        for index in 0..<1_000 {
            inners[index].send(index)
            inners[index].send(completion: .finished)
            if index + 10 < 1_000 { upstream.send(index + 10) }
        }
        #expect(upstream.subscription.requests == [.max(10)] + Array(repeating: .max(1), count: 1_000))
        #expect(subscriber.values == Array(0..<1_000))
    }

    @Test func cancellingWithManyLiveInnersCancelsEachOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2_000).map { _ in ManualPublisher<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { inners[$0] }.subscribe(subscriber)
        for index in 0..<2_000 { upstream.send(index) }
        for index in stride(from: 0, to: 2_000, by: 3) { inners[index].send(completion: .finished) }
        subscriber.cancel()
        for (index, inner) in inners.enumerated() {
            #expect(inner.subscription.cancelCount == (index % 3 == 0 ? 0 : 1), "inner \(index)")
        }
        #expect(upstream.subscription.cancelCount == 1)
    }
}
