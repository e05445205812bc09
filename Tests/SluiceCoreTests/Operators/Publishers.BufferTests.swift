@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

/// A buffer of `size` over a hot `ManualPublisher` (which sends whatever the test says, demand or
/// not), with a subscriber that starts with `initialDemand`.
private func hotBuffer(
    size: Int, prefetch: Publishers.PrefetchStrategy,
    whenFull: Publishers.BufferingStrategy<TestError>, initialDemand: Subscribers.Demand = .none
) -> (ManualPublisher<Int, TestError>, TestSubscriber<Int, TestError>) {
    let upstream = ManualPublisher<Int, TestError>()
    let subscriber = TestSubscriber<Int, TestError>(initialDemand: initialDemand)
    upstream.buffer(size: size, prefetch: prefetch, whenFull: whenFull).subscribe(subscriber)
    return (upstream, subscriber)
}

private let bothPrefetches: [Publishers.PrefetchStrategy] = [.keepFull, .byRequest]

@Suite("Publishers.Buffer")
struct BufferTests {
    // MARK: Prefetch

    @Test func keepFullRequestsSizeAndDoesNotForwardDownstreamRequests() {
        let (upstream, subscriber) = hotBuffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest)
        #expect(upstream.subscription.requests == [.max(3)])
        subscriber.request(.max(5))
        subscriber.request(.unlimited)
        #expect(upstream.subscription.requests == [.max(3)])
    }

    @Test func keepFullRequestsOneMoreForEachValueThatLeaves() {
        let (upstream, subscriber) = hotBuffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .none)
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2])
        #expect(upstream.subscription.requests == [.max(3), .max(2)])
        // A value passing straight through (demand waiting, buffer empty) is refilled through
        // the demand returned to the upstream.
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        #expect(upstream.subscription.requests == [.max(3), .max(2), .max(1)])
        #expect(upstream.send(4) == .max(1))
        #expect(subscriber.values == [1, 2, 3, 4])
    }

    @Test func keepFullOverASynchronousUpstreamHoldsSizeValuesAhead() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...20).publisher.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.unlimited)
        #expect(subscriber.values == Array(1...20))
        #expect(subscriber.completion == .finished)
    }

    @Test func byRequestAsksForUnlimitedOnceAndDoesNotForwardDownstreamRequests() {
        let (upstream, subscriber) = hotBuffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest)
        #expect(upstream.subscription.requests == [.unlimited])
        subscriber.request(.max(2))
        #expect(upstream.send(1) == .none)
        #expect(upstream.subscription.requests == [.unlimited])
        #expect(subscriber.values == [1])
    }

    @Test func theSubscriptionReachesTheDownstreamBeforeTheUpstreamIsAsked() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subscriber.onSubscription = { _ in #expect(upstream.subscription.requests.isEmpty) }
        upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Buffer)"])
        #expect(upstream.subscription.requests == [.max(2)])
    }

    // MARK: Full buffer, every combination

    @Test(arguments: bothPrefetches)
    func dropNewestDiscardsArrivingValues(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 2, prefetch: prefetch, whenFull: .dropNewest)
        for value in 1...5 { upstream.send(value) }
        subscriber.request(.max(1))
        #expect(subscriber.values == [1])
        upstream.send(6)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 6])
        #expect(subscriber.completion == nil)
        #expect(!upstream.subscription.isCancelled)
    }

    @Test(arguments: bothPrefetches)
    func dropOldestDiscardsTheOldestBufferedValue(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 2, prefetch: prefetch, whenFull: .dropOldest)
        for value in 1...5 { upstream.send(value) }
        subscriber.request(.max(1))
        #expect(subscriber.values == [4])
        upstream.send(6)
        upstream.send(7)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [4, 6, 7])
        #expect(subscriber.completion == nil)
    }

    @Test(arguments: bothPrefetches)
    func customErrorCancelsUpstreamAndFailsAtOnce(prefetch: Publishers.PrefetchStrategy) {
        let calls = Shared(0)
        let (upstream, subscriber) = hotBuffer(size: 2, prefetch: prefetch, whenFull: .customError {
            calls.mutate { $0 += 1 }
            return TestError(code: 9)
        })
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.completion == nil)
        upstream.send(3)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Buffer)", "failure(TestError(code: 9))"])
        upstream.send(4)
        upstream.send(completion: .finished)
        subscriber.request(.unlimited)
        #expect(subscriber.events.count == 2)
        #expect(calls.value == 1)
    }

    @Test(arguments: bothPrefetches)
    func customErrorWaitsForADeliveryInProgress(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 1, prefetch: prefetch, whenFull: .customError {
            TestError(code: 4)
        }, initialDemand: .max(1))
        subscriber.onValue = { value, _ in
            if value == 1 {
                upstream.send(2)  // buffered
                upstream.send(3)  // overflows while 1 is being delivered
            }
            return .none
        }
        upstream.send(1)
        #expect(subscriber.eventDescriptions == ["subscription(Buffer)", "value(1)", "failure(TestError(code: 4))"])
    }

    @Test(arguments: bothPrefetches)
    func aFullBufferStillDeliversWhatIsDemanded(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 2, prefetch: prefetch, whenFull: .dropNewest,
                                               initialDemand: .max(2))
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(4)
        upstream.send(5)
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 3, 4])
    }

    // MARK: Demand

    @Test(arguments: bothPrefetches)
    func limitedDemandGetsOneValueAtATime(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 5, prefetch: prefetch, whenFull: .dropNewest,
                                               initialDemand: .max(1))
        for value in 1...4 { upstream.send(value) }
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
    }

    @Test(arguments: bothPrefetches)
    func demandReturnedFromReceiveIsHonoured(prefetch: Publishers.PrefetchStrategy) {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none, demandPerValue: .max(1))
        upstream.buffer(size: 5, prefetch: prefetch, whenFull: .dropNewest).subscribe(subscriber)
        for value in 1...4 { upstream.send(value) }
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4])
        upstream.send(5)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
    }

    // MARK: Completion

    @Test(arguments: bothPrefetches)
    func finishedWaitsForTheBufferToDrain(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 5, prefetch: prefetch, whenFull: .dropNewest)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Buffer)", "value(1)", "value(2)", "finished"])
    }

    @Test(arguments: bothPrefetches)
    func finishedWithAnEmptyBufferIsImmediate(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 5, prefetch: prefetch, whenFull: .dropNewest)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Buffer)", "finished"])
    }

    @Test(arguments: bothPrefetches)
    func failureIsDeliveredAtOnceDiscardingBufferedValues(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 5, prefetch: prefetch, whenFull: .dropNewest,
                                               initialDemand: .max(1))
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .failure(TestError(code: 2)))
        subscriber.request(.unlimited)
        #expect(subscriber.eventDescriptions == [
            "subscription(Buffer)", "value(1)", "failure(TestError(code: 2))",
        ])
        #expect(upstream.subscription.cancelCount == 0)
    }

    @Test func synchronousUpstreamsCompleteThroughTheBuffer() {
        let finished = TestSubscriber<Int, Never>()
        (1...4).publisher.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest).subscribe(finished)
        #expect(finished.values == [1, 2, 3, 4])
        #expect(finished.completion == .finished)
        let failed = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 7)).buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest)
            .subscribe(failed)
        #expect(failed.eventDescriptions == ["subscription(Buffer)", "failure(TestError(code: 7))"])
    }

    // MARK: Cancellation and re-entrancy

    @Test(arguments: bothPrefetches)
    func cancellingCancelsUpstreamAndStopsEvents(prefetch: Publishers.PrefetchStrategy) {
        let (upstream, subscriber) = hotBuffer(size: 5, prefetch: prefetch, whenFull: .dropNewest,
                                               initialDemand: .max(1))
        upstream.send(1)
        upstream.send(2)
        let subscription = subscriber.subscription!
        subscriber.cancel()
        subscription.request(.max(5))
        upstream.send(3)
        upstream.send(completion: .finished)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantRequestFromReceiveKeepsOrder() {
        let (upstream, subscriber) = hotBuffer(size: 10, prefetch: .byRequest, whenFull: .dropNewest)
        for value in 1...5 { upstream.send(value) }
        subscriber.onValue = { value, subscriber in
            if value < 5 { subscriber.request(.max(1)) }
            return .none
        }
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4, 5])
    }

    @Test func reentrantCancelFromReceive() {
        let (upstream, subscriber) = hotBuffer(size: 10, prefetch: .byRequest, whenFull: .dropNewest)
        for value in 1...5 { upstream.send(value) }
        upstream.send(completion: .finished)
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test func aValueSentFromInsideReceiveWaitsItsTurn() {
        let (upstream, subscriber) = hotBuffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest,
                                               initialDemand: .unlimited)
        let detector = OverlapDetector()
        subscriber.onValue = { value, _ in
            detector.enter()
            defer { detector.leave() }
            if value == 1 {
                // Sent re-entrantly: delivered after this `receive` returns, not inside it.
                upstream.send(10)
                upstream.send(11)
            }
            return .none
        }
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(detector.overlaps == 0)
        #expect(subscriber.eventDescriptions == [
            "subscription(Buffer)", "value(1)", "value(10)", "value(11)", "value(2)", "finished",
        ])
    }

    // MARK: Threads

    @Test func concurrentSendsAndRequestsAreSerialisedAndLoseNothing() {
        let count = 2_000
        let (upstream, subscriber) = hotBuffer(size: count, prefetch: .byRequest, whenFull: .customError {
            TestError(code: 99)
        })
        let detector = OverlapDetector()
        watchOverlaps(subscriber, with: detector)
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for value in 0..<count {
                if thread == 0 {
                    upstream.send(value)
                } else {
                    subscriber.request(.max(1))
                }
            }
        }
        upstream.send(completion: .finished)
        #expect(detector.overlaps == 0)
        #expect(subscriber.values == Array(0..<count))
        #expect(subscriber.completion == .finished)
    }

    @Test func concurrentCancelStopsDelivery() {
        for _ in 0..<50 {
            let (upstream, subscriber) = hotBuffer(size: 100, prefetch: .keepFull, whenFull: .dropOldest)
            let afterCancel = Shared(false)
            let late = Shared(0)
            subscriber.onValue = { _, _ in
                if afterCancel.value { late.mutate { $0 += 1 } }
                return .none
            }
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                if thread == 0 {
                    for value in 0..<200 {
                        upstream.send(value)
                        if value.isMultiple(of: 10) { subscriber.request(.max(5)) }
                    }
                } else {
                    subscriber.cancel()
                    afterCancel.value = true
                }
            }
            #expect(upstream.subscription.cancelCount == 1)
            // A delivery already under way when cancel returned may finish; nothing starts after.
            #expect(late.value <= 1)
        }
    }

    // MARK: Memory, descriptions, types, contract

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, TestError>()
        let make = { subject.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest) }
        #expect(!subscriberSurvives({ make().subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ make().subscribe($0) }, end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({
            other.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe($0)
        }, end: { _ in other.send(completion: .failure(TestError())) }))
        let overflowing = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({
            overflowing.buffer(size: 0, prefetch: .byRequest, whenFull: .customError { TestError() }).subscribe($0)
        }, end: { $0.cancel(); overflowing.send(1) }))
    }

    @Test func releasesTheSubscriberAfterOverflow() {
        let upstream = ManualPublisher<Int, TestError>()
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        do {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
            weakSubscriber = subscriber
            upstream.buffer(size: 1, prefetch: .byRequest, whenFull: .customError { TestError() })
                .subscribe(subscriber)
            upstream.send(1)
            upstream.send(2)
            #expect(subscriber.completion != nil)
            upstream.detachAll()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.buffer(size: 1, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
        #expect(upstream.subscriberDescription == "Buffer")
        #expect(String(describing: subscriber.subscription!) == "Buffer")
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        let buffered = subject.buffer(size: 4, prefetch: .byRequest, whenFull: .dropOldest)
        #expect(type(of: buffered) == Publishers.Buffer<PassthroughSubject<Int, Never>>.self)
        #expect(buffered.size == 4)
        #expect(buffered.prefetch == .byRequest)
        #expect(buffered.upstream === subject)
        #expect(Publishers.PrefetchStrategy.keepFull != .byRequest)
        #expect(Set([Publishers.PrefetchStrategy.keepFull, .keepFull, .byRequest]).count == 2)
    }

    @Test func zeroDemandStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            PublisherContract.requestZeroDemand { PassthroughSubject<Int, Never>().buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest) }
        }
        if let result {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("must not be called with .none"), "stderr: \(message)")
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest)
        }
        try await PublisherContract.verify {
            (1...30).publisher.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest)
        }
        try await PublisherContract.verify {
            (1...30).publisher.setFailureType(to: TestError.self)
                .buffer(size: 5, prefetch: .byRequest, whenFull: .customError { TestError() })
        }
        try await PublisherContract.verify {
            let subject = PassthroughSubject<Int, TestError>()
            return PublisherContract.Fixture(subject.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest)) {
                for value in 1...10 { subject.send(value) }
                subject.send(completion: .failure(TestError()))
            }
        }
    }
}

@Suite("BufferState")
struct BufferStateTests {
    typealias State = BufferState<Int, TestError>

    @Test func aValueGoesStraightThroughWhenDemandWaitsAndTheBufferIsEmpty() {
        var state = State(capacity: 2, overflow: .dropNewest, refills: true)
        guard case .idle = state.subscriptionDelivered() else { Issue.record("not idle"); return }
        guard case .idle = state.request(.max(1)) else { Issue.record("not idle"); return }
        guard case .deliver(1) = state.receive(1) else { Issue.record("not delivered"); return }
        #expect(state.isDelivering)
        guard case .idle = state.delivered(more: .none) else { Issue.record("not idle"); return }
        #expect(!state.isDelivering)
        #expect(state.takeRefills() == 1)
        #expect(state.takeRefills() == 0)
    }

    @Test func valuesArrivingDuringADeliveryQueueBehindIt() {
        var state = State(capacity: 2, overflow: .dropNewest, refills: false)
        _ = state.subscriptionDelivered()
        _ = state.request(.max(3))
        guard case .deliver(1) = state.receive(1) else { Issue.record("not delivered"); return }
        guard case .queued = state.receive(2) else { Issue.record("not queued"); return }
        guard case .value(2) = state.delivered(more: .none) else { Issue.record("2 not next"); return }
        guard case .idle = state.delivered(more: .none) else { Issue.record("not idle"); return }
        #expect(state.demand == .max(1))
        #expect(state.takeRefills() == 0)
    }

    @Test func overflowStrategies() {
        var newest = State(capacity: 1, overflow: .dropNewest, refills: false)
        _ = newest.subscriptionDelivered()
        guard case .queued = newest.receive(1), case .dropped = newest.receive(2) else {
            Issue.record("dropNewest"); return
        }
        var oldest = State(capacity: 1, overflow: .dropOldest, refills: false)
        _ = oldest.subscriptionDelivered()
        guard case .queued = oldest.receive(1), case .queued = oldest.receive(2) else {
            Issue.record("dropOldest"); return
        }
        guard case .value(2) = oldest.request(.max(1)) else { Issue.record("2 not kept"); return }
        var failing = State(capacity: 1, overflow: .fail, refills: false)
        _ = failing.subscriptionDelivered()
        guard case .queued = failing.receive(1), case .overflow = failing.receive(2) else {
            Issue.record("fail"); return
        }
        guard case .dropped = failing.receive(3) else { Issue.record("accepted after overflow"); return }
        guard case .completion(.failure(TestError(code: 5))) = failing.fail(TestError(code: 5)) else {
            Issue.record("no failure"); return
        }
    }

    @Test func completionsWaitForTheSubscriptionWindow() {
        var state = State(capacity: 2, overflow: .dropNewest, refills: false)
        guard case .idle = state.receive(completion: .finished) else { Issue.record("delivered early"); return }
        guard case .completion(.finished) = state.subscriptionDelivered() else { Issue.record("lost"); return }
        #expect(state.isTerminal)
    }

    @Test func aFailureOvertakesBufferedValuesAndFinishedDoesNot() {
        var finishing = State(capacity: 3, overflow: .dropNewest, refills: false)
        _ = finishing.subscriptionDelivered()
        _ = finishing.receive(1)
        guard case .idle = finishing.receive(completion: .finished) else { Issue.record("finished early"); return }
        guard case .value(1) = finishing.request(.max(1)) else { Issue.record("value lost"); return }
        guard case .completion(.finished) = finishing.delivered(more: .none) else { Issue.record("no finish"); return }

        var failing = State(capacity: 3, overflow: .dropNewest, refills: false)
        _ = failing.subscriptionDelivered()
        _ = failing.receive(1)
        guard case .completion(.failure) = failing.receive(completion: .failure(TestError())) else {
            Issue.record("failure waited"); return
        }
    }

    @Test func cancelStopsEverything() {
        var state = State(capacity: 3, overflow: .dropNewest, refills: true)
        _ = state.subscriptionDelivered()
        _ = state.receive(1)
        state.cancel()
        guard case .idle = state.request(.max(1)), case .dropped = state.receive(2),
              case .idle = state.receive(completion: .finished)
        else { Issue.record("acted after cancel"); return }
        #expect(state.count == 0)
        #expect(state.takeRefills() == 0)
    }
}
