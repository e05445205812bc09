import SluiceCore
import SluiceTesting
import Testing

@Suite struct AsyncSequencePublisherTests {
    /// An async sequence that counts how many elements have been pulled from it.
    struct Counting: AsyncSequence, Sendable {
        typealias Element = Int
        let limit: Int
        let pulled: PullCounter
        struct AsyncIterator: AsyncIteratorProtocol {
            var next = 0
            let limit: Int
            let pulled: PullCounter
            mutating func next() async -> Int? {
                guard next < limit else { return nil }
                next += 1
                pulled.add()
                return next
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(limit: limit, pulled: pulled) }
    }

    @Test func pullsOnlyAsDemandArrives() async {
        let pulled = PullCounter()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        Counting(limit: 10, pulled: pulled).asPublisher.subscribe(subscriber)
        await waitUntil { subscriber.values.count == 2 }
        try? await Task.sleep(for: .milliseconds(20))
        #expect(subscriber.values == [1, 2])
        #expect(pulled.value == 2)            // nothing taken ahead of demand
        subscriber.request(.max(100))
        await waitUntil { subscriber.completion != nil }
        #expect(subscriber.values == Array(1...10))
        #expect(subscriber.completion == .finished)
    }

    @Test func nothingStartsBeforeDemand() async {
        let pulled = PullCounter()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Counting(limit: 3, pulled: pulled).asPublisher.subscribe(subscriber)
        try? await Task.sleep(for: .milliseconds(20))
        #expect(pulled.value == 0)
        subscriber.cancel()
    }

    @Test func aThrowingSequenceFails() async {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: TestError(code: 9))
        }
        let subscriber = TestSubscriber<Int, any Error>()
        stream.asPublisher.subscribe(subscriber)
        await waitUntil { subscriber.completion != nil }
        #expect(subscriber.values == [1])
        guard case .failure(let error as TestError)? = subscriber.completion else {
            Issue.record("expected a failure, got \(String(describing: subscriber.completion))")
            return
        }
        #expect(error == TestError(code: 9))
    }

    @Test func cancelCancelsTheIteratingTask() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let terminated = Flag()
        continuation.onTermination = { _ in terminated.set() }
        let subscriber = TestSubscriber<Int, Never>()
        stream.asPublisher.subscribe(subscriber)
        continuation.yield(1)
        await waitUntil { subscriber.values == [1] }
        subscriber.cancel()
        await waitUntil { terminated.isSet }
        #expect(terminated.isSet)
        continuation.yield(2)
        try? await Task.sleep(for: .milliseconds(10))
        #expect(subscriber.values == [1])
    }

    @Test func releasesTheSubscriberAfterCancelAndAfterCompletion() async {
        weak var cancelled: TestSubscriber<Int, Never>?
        weak var completed: TestSubscriber<Int, Never>?
        do {
            let (stream, _) = AsyncStream<Int>.makeStream()
            let a = TestSubscriber<Int, Never>()
            cancelled = a
            stream.asPublisher.subscribe(a)
            a.cancel()
            let b = TestSubscriber<Int, Never>()
            completed = b
            Counting(limit: 2, pulled: PullCounter()).asPublisher.subscribe(b)
            await waitUntil { b.completion != nil }
        }
        await waitUntil { cancelled == nil && completed == nil }
        #expect(cancelled == nil)
        #expect(completed == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Counting(limit: 5, pulled: PullCounter()).asPublisher }
    }
}
