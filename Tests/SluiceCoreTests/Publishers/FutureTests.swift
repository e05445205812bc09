import Dispatch
import SluiceCore
import SluiceTesting
import Synchronization
import Testing

/// A future's promise, kept by the test to fulfil the future when it chooses, from any thread.
private final class Fulfil<Output, Failure: Error>: @unchecked Sendable {
    let promise: Future<Output, Failure>.Promise
    init(_ promise: @escaping Future<Output, Failure>.Promise) { self.promise = promise }
    func callAsFunction(_ result: Result<Output, Failure>) { promise(result) }
}

/// A future that is not fulfilled yet, and its promise.
private func pendingFuture<Output, Failure: Error>(
    _: Output.Type = Output.self, _: Failure.Type = Failure.self
) -> (Future<Output, Failure>, Fulfil<Output, Failure>) {
    let promise = Shared<Future<Output, Failure>.Promise?>(nil)
    let future = Future<Output, Failure> { fulfil in promise.value = fulfil }
    return (future, Fulfil(promise.value!))
}

@Suite("Future")
struct FutureTests {
    // MARK: Values and completion

    @Test func runsTheClosureAtOnce() {
        let ran = Shared(false)
        _ = Future<Int, Never> { _ in ran.value = true }
        #expect(ran.value)
    }

    @Test func deliversAnImmediateValueThenFinishes() {
        let future = Future<Int, Never> { $0(.success(42)) }
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(42)", "finished"])
    }

    @Test func deliversALaterValueThenFinishes() {
        let (future, promise) = pendingFuture(Int.self, Never.self)
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Future)"])
        promise(.success(1))
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(1)", "finished"])
    }

    @Test func deliversAFailureWithoutDemand() {
        let (future, promise) = pendingFuture(Int.self, TestError.self)
        let early = TestSubscriber<Int, TestError>(initialDemand: .none)
        future.subscribe(early)
        promise(.failure(TestError(code: 2)))
        let late = TestSubscriber<Int, TestError>(initialDemand: .none)
        future.subscribe(late)
        for subscriber in [early, late] {
            #expect(subscriber.eventDescriptions == ["subscription(Future)", "failure(TestError(code: 2))"])
        }
    }

    @Test func honoursOnlyTheFirstResult() {
        let (future, promise) = pendingFuture(Int.self, TestError.self)
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        promise(.success(1))
        promise(.success(2))
        promise(.failure(TestError()))
        let late = TestSubscriber<Int, TestError>()
        future.subscribe(late)
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(1)", "finished"])
        #expect(late.eventDescriptions == ["subscription(Future)", "value(1)", "finished"])
    }

    @Test func replaysTheResultToEverySubscriber() {
        let (future, promise) = pendingFuture(String.self, Never.self)
        let before = (0..<3).map { _ in TestSubscriber<String, Never>() }
        before.forEach(future.subscribe)
        promise(.success("done"))
        let after = (0..<3).map { _ in TestSubscriber<String, Never>() }
        after.forEach(future.subscribe)
        for subscriber in before + after {
            #expect(subscriber.values == ["done"])
            #expect(subscriber.completion == .finished)
        }
    }

    @Test func worksWithSink() {
        let future = Future<Int, Never> { $0(.success(5)) }
        let received = Shared<[Int]>([])
        let finished = Shared(false)
        let cancellable = future.sink(receiveCompletion: { _ in finished.value = true }, receiveValue: { value in
            received.mutate { $0.append(value) }
        })
        #expect(received.value == [5])
        #expect(finished.value)
        _ = cancellable
    }

    // MARK: Demand

    @Test func waitsForDemandBeforeSendingTheValue() {
        let future = Future<Int, Never> { $0(.success(9)) }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        future.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Future)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(9)", "finished"])
    }

    @Test func aValueArrivingBeforeDemandWaitsForIt() {
        let (future, promise) = pendingFuture(Int.self, Never.self)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        future.subscribe(subscriber)
        promise(.success(3))
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(3)", "finished"])
    }

    @Test func limitedDemandOfOneGetsTheValueAndTheCompletion() {
        let (future, promise) = pendingFuture(Int.self, Never.self)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        future.subscribe(subscriber)
        promise(.success(8))
        #expect(subscriber.values == [8])
        #expect(subscriber.completion == .finished)
    }

    @Test func zeroDemandStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let future = Future<Int, Never> { $0(.success(1)) }
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            future.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    // MARK: Cancellation

    @Test func nothingArrivesAfterCancelBeforeTheResult() {
        let (future, promise) = pendingFuture(Int.self, TestError.self)
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        subscriber.cancel()
        promise(.failure(TestError()))
        #expect(subscriber.eventDescriptions == ["subscription(Future)"])
    }

    @Test func nothingArrivesAfterCancelBeforeDemand() {
        let future = Future<Int, Never> { $0(.success(1)) }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        future.subscribe(subscriber)
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscription?.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Future)"])
    }

    @Test func cancellingOneSubscriberLeavesTheOthers() {
        let (future, promise) = pendingFuture(Int.self, Never.self)
        let cancelled = TestSubscriber<Int, Never>()
        let kept = TestSubscriber<Int, Never>()
        future.subscribe(cancelled)
        future.subscribe(kept)
        cancelled.cancel()
        cancelled.cancel()
        promise(.success(4))
        #expect(cancelled.values.isEmpty)
        #expect(kept.values == [4])
    }

    @Test func manyWaitingSubscribersCancelledInRandomOrderLeaveTheRestInSubscriptionOrder() {
        let (future, promise) = pendingFuture(Int.self, Never.self)
        var delivered: [Int] = []
        var cancellables = (0..<5_000).map { index in future.sink { _ in delivered.append(index) } }
        var generator = SeededGenerator(seed: 5)
        // Four in five cancelled, in random order (the waiting list is compacted several times),
        // some twice; then more subscribe, and some of those cancel too.
        let cancelled = Set(Array(0..<5_000).shuffled(using: &generator).prefix(4_000))
        for index in Array(cancelled).shuffled(using: &generator) {
            cancellables[index].cancel()
            if index.isMultiple(of: 7) { cancellables[index].cancel() }
        }
        cancellables += (5_000..<6_000).map { index in future.sink { _ in delivered.append(index) } }
        for index in stride(from: 5_000, to: 6_000, by: 3) { cancellables[index].cancel() }
        promise(.success(1))
        let expected = (0..<5_000).filter { !cancelled.contains($0) }
            + (5_000..<6_000).filter { ($0 - 5_000) % 3 != 0 }
        #expect(delivered == expected)
        for cancellable in cancellables { cancellable.cancel() }
        #expect(delivered == expected)
    }

    // MARK: Re-entrancy

    @Test func promiseFulfilledFromInsideReceiveSubscription() {
        let (future, promise) = pendingFuture(Int.self, Never.self)
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onSubscription = { _ in promise(.success(6)) }
        future.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(6)", "finished"])
    }

    @Test func failureFulfilledFromInsideReceiveSubscriptionArrivesAfterIt() {
        let (future, promise) = pendingFuture(Int.self, TestError.self)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        let completedDuringSubscription = Shared(false)
        subscriber.onSubscription = { subscriber in
            promise(.failure(TestError()))
            completedDuringSubscription.value = subscriber.completion != nil
        }
        future.subscribe(subscriber)
        #expect(!completedDuringSubscription.value)
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "failure(TestError(code: 1))"])
    }

    @Test func cancelFromInsideReceiveValue() {
        let future = Future<Int, Never> { $0(.success(1)) }
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        future.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(1)"])
    }

    // MARK: Memory

    @Test func subscriptionMirror() {
        // As Apple's: parent, downstream, hasAnyDemand, subject. The parent goes once the promise
        // delivers; a result that waited for demand leaves it in place.
        let (future, fulfil) = pendingFuture(Int.self, Never.self)
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        let subscription = subscriber.subscription!
        let live = Array(Mirror(reflecting: subscription).children)
        #expect(live.map(\.label) == ["parent", "downstream", "hasAnyDemand", "subject"])
        #expect(live[0].value as? Future<Int, Never> === future)
        #expect(live[2].value as? Bool == true)
        fulfil(.success(1))
        #expect(String(describing: Mirror(reflecting: subscription).children.first!.value) == "nil")

        let (waiting, fulfilWaiting) = pendingFuture(Int.self, Never.self)
        let late = TestSubscriber<Int, Never>(initialDemand: .none)
        waiting.subscribe(late)
        fulfilWaiting(.success(2))
        let lateSubscription = late.subscription!
        lateSubscription.request(.max(1))
        #expect(late.values == [2])
        #expect(Mirror(reflecting: lateSubscription).children.first?.value as? Future<Int, Never> === waiting)
    }

    @Test func releasesTheClosureAfterRunningIt() {
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            _ = Future<Int, Never> { _ in token.value += 1 }
        }
        #expect(weakToken == nil)
    }

    @Test func releasesTheSubscriberAfterCompletion() {
        let (future, promise) = pendingFuture(Int.self, Never.self)
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            future.subscribe(subscriber)
            promise(.success(1))
        }
        #expect(weakSubscriber == nil)
        _ = future
    }

    @Test func releasesTheSubscriberAfterCancel() {
        let (future, _) = pendingFuture(Int.self, Never.self)
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            future.subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(weakSubscriber == nil)
        _ = future
    }

    @Test func thePromiseKeepsTheFutureAliveUntilReleased() {
        weak var weakFuture: Future<Int, Never>?
        var promise: Fulfil<Int, Never>?
        do {
            let (future, fulfil) = pendingFuture(Int.self, Never.self)
            weakFuture = future
            promise = fulfil
        }
        #expect(weakFuture != nil)
        promise?(.success(1))
        promise = nil
        #expect(weakFuture == nil)
    }

    // MARK: Threads

    @Test func fulfilledFromAnotherThreadWhileSubscribing() {
        for _ in 0..<20 {
            let (future, promise) = pendingFuture(Int.self, Never.self)
            let subscribers = Shared<[TestSubscriber<Int, Never>]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                if thread == 0 {
                    promise(.success(thread + 10))
                    return
                }
                for _ in 0..<50 {
                    let subscriber = TestSubscriber<Int, Never>()
                    subscribers.mutate { $0.append(subscriber) }
                    future.subscribe(subscriber)
                }
            }
            for subscriber in subscribers.value {
                #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(10)", "finished"])
            }
        }
    }

    @Test func manyThreadsRaceToFulfil() {
        for _ in 0..<20 {
            let (future, promise) = pendingFuture(Int.self, TestError.self)
            let subscriber = TestSubscriber<Int, TestError>()
            future.subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                promise(thread.isMultiple(of: 2) ? .success(thread) : .failure(TestError(code: thread)))
            }
            let late = TestSubscriber<Int, TestError>()
            future.subscribe(late)
            #expect(subscriber.events.count == (subscriber.values.isEmpty ? 2 : 3))
            #expect(late.eventDescriptions == subscriber.eventDescriptions)
        }
    }

    @Test func requestsAndCancelsRaceWithFulfilment() {
        for _ in 0..<20 {
            let (future, promise) = pendingFuture(Int.self, Never.self)
            let subscribers = (0..<64).map { _ in TestSubscriber<Int, Never>(initialDemand: .none) }
            subscribers.forEach(future.subscribe)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                if thread == 0 { return promise(.success(1)) }
                for (index, subscriber) in subscribers.enumerated() where index % 3 == thread - 1 {
                    if index.isMultiple(of: 2) { subscriber.request(.max(1)) } else { subscriber.cancel() }
                }
            }
            for (index, subscriber) in subscribers.enumerated() {
                if index.isMultiple(of: 2) {
                    #expect(subscriber.eventDescriptions == ["subscription(Future)", "value(1)", "finished"])
                } else {
                    #expect(subscriber.values.isEmpty)
                }
            }
        }
    }

    // MARK: Contract

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Future<Int, Never> { $0(.success(1)) } }
        try await PublisherContract.verify { Future<Int, TestError> { $0(.failure(TestError())) } }
        try await PublisherContract.verify(settle: .milliseconds(50)) {
            Future<Int, TestError> { promise in
                let fulfil = Fulfil(promise)
                DispatchQueue.global().async { fulfil(.success(2)) }
            }
        }
        try await PublisherContract.verify {
            let (future, promise) = pendingFuture(Int.self, Never.self)
            return PublisherContract.Fixture(future) { promise(.success(3)) }
        }
    }
}
