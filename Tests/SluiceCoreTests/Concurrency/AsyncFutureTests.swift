import SluiceCore
import SluiceTesting
import Testing

@Suite struct AsyncFutureTests {
    @Test func asyncFutureStartsOnDemandAndPublishesOnce() async {
        let runs = PullCounter()
        let future = AsyncFuture { () async -> Int in
            runs.add()
            return 42
        }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        future.subscribe(subscriber)
        try? await Task.sleep(for: .milliseconds(20))
        #expect(runs.value == 0)
        subscriber.request(.max(1))
        await waitUntil { subscriber.completion != nil }
        #expect(subscriber.values == [42])
        #expect(subscriber.completion == .finished)
        #expect(runs.value == 1)
    }

    @Test func asyncFutureFailsWithTheThrownError() async {
        let future = AsyncFuture { () async throws(TestError) -> Int in throw TestError(code: 5) }
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        await waitUntil { subscriber.completion != nil }
        #expect(subscriber.completion == .failure(TestError(code: 5)))
    }

    @Test func cancellingAnAsyncFutureCancelsItsTask() async {
        let sawCancel = Flag()
        let future = AsyncFuture { () async throws -> Int in
            do {
                try await Task.sleep(for: .seconds(10))
            } catch {
                sawCancel.set()
                throw error
            }
            return 1
        }
        let subscriber = TestSubscriber<Int, any Error>()
        future.subscribe(subscriber)
        try? await Task.sleep(for: .milliseconds(20))
        subscriber.cancel()
        await waitUntil { sawCancel.isSet }
        #expect(sawCancel.isSet)
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriberAfterCancelAndAfterCompletion() async {
        weak var cancelled: TestSubscriber<Int, any Error>?
        weak var completed: TestSubscriber<Int, Never>?
        do {
            let a = TestSubscriber<Int, any Error>()
            cancelled = a
            AsyncFuture { () async throws -> Int in
                try await Task.sleep(for: .seconds(10))
                return 1
            }.subscribe(a)
            a.cancel()
            let b = TestSubscriber<Int, Never>()
            completed = b
            AsyncFuture { () async -> Int in 3 }.subscribe(b)
            await waitUntil { b.completion != nil }
        }
        await waitUntil { cancelled == nil && completed == nil }
        #expect(cancelled == nil)
        #expect(completed == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { AsyncFuture { () async -> Int in 7 } }
    }
}
