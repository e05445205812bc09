import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryCatch")
struct TryCatchTests {
    private func failing(_ values: [Int]) -> Record<Int, TestError> {
        Record(output: values, completion: .failure(TestError(code: 1)))
    }

    @Test func replacesTheFailedUpstream() {
        let subscriber = TestSubscriber<Int, any Error>()
        failing([1, 2]).tryCatch { _ in Just(9) }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 9])
        #expect(subscriber.eventDescriptions.last == "finished")
        #expect(subscriber.eventDescriptions.first == "subscription(TryCatch)")
    }

    @Test func throwingHandlerFailsTheStream() {
        let subscriber = TestSubscriber<Int, any Error>()
        failing([1]).tryCatch { error -> Just<Int> in throw TestError(code: error.code + 10) }
            .subscribe(subscriber)
        #expect(subscriber.values == [1])
        #expect(subscriber.eventDescriptions.last == "failure(TestError(code: 11))")
    }

    @Test func carriesOverOutstandingDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(3))
        upstream.tryCatch { _ in replacement }.subscribe(subscriber)
        _ = upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(replacement.subscription.requests == [.max(2)])
        replacement.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.eventDescriptions.last == "failure(TestError(code: 3))")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError(code: 1)))
                .tryCatch { _ in Record<Int, Never>(output: [4, 5], completion: .finished) }
        }
    }
}
