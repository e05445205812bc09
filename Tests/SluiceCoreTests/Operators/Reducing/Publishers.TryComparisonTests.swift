import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryComparison")
struct TryComparisonTests {
    @Test func tryMinAndTryMaxPublishAtFinish() {
        let minimum = TestSubscriber<Int, any Error>()
        let maximum = TestSubscriber<Int, any Error>()
        [3, -1, 7].publisher.eraseToAnyPublisher().tryMin { $0 < $1 }.subscribe(minimum)
        [3, -1, 7].publisher.eraseToAnyPublisher().tryMax { $0 < $1 }.subscribe(maximum)
        #expect(minimum.eventDescriptions == ["subscription(TryComparison)", "value(-1)", "finished"])
        #expect(maximum.eventDescriptions == ["subscription(TryComparison)", "value(7)", "finished"])
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryMax { lhs, rhs in
            if rhs == 0 { throw TestError(code: 0) }
            return lhs < rhs
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(0)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(TryComparison)", "failure(TestError(code: 0))"])
    }

    @Test func upstreamFailureAndEmpty() {
        let failing = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 2)).tryMin { $0 < $1 }.subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(TryComparison)", "failure(TestError(code: 2))"])
        let empty = TestSubscriber<Int, any Error>()
        Empty<Int, Never>().tryMax { $0 < $1 }.subscribe(empty)
        #expect(empty.eventDescriptions == ["subscription(TryComparison)", "finished"])
    }

    @Test func nothingBeforeDemand() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
        [4, 9].publisher.eraseToAnyPublisher().tryMax { $0 < $1 }.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [9])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { [5, 1, 9].publisher.eraseToAnyPublisher().tryMin { $0 < $1 } }
        try await PublisherContract.verify {
            [5, 1, 9].publisher.eraseToAnyPublisher().tryMax { _, _ in throw TestError() }
        }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryMin { $0 < $1 }) == Publishers.TryComparison<PassthroughSubject<Int, Never>>.self)
        let result: Result<Int, any Error>.Publisher = Result<Int, TestError>.Publisher(5).tryMin { $0 < $1 }
        #expect((try? result.result.get()) == 5)
        #expect(throws: TestError(code: 3)) {
            try Result<Int, TestError>.Publisher(TestError(code: 3)).tryMax { $0 < $1 }.result.get()
        }
    }

    @Test func fusedOnResultCallsTheClosureOnceWithTheOutputTwice() {
        // As Apple's: on success the closure runs once, with (output, output); a throw fails.
        var calls: [[Int]] = []
        let recording: (Int, Int) throws -> Bool = { calls.append([$0, $1]); return false }
        #expect((try? Result<Int, TestError>.Publisher(5).tryMin(by: recording).result.get()) == 5)
        #expect((try? Result<Int, TestError>.Publisher(6).tryMax(by: recording).result.get()) == 6)
        #expect(calls == [[5, 5], [6, 6]])
        #expect(throws: TestError(code: 9)) {
            try Result<Int, TestError>.Publisher(5).tryMin { _, _ in throw TestError(code: 9) }.result.get()
        }
        #expect(throws: TestError(code: 9)) {
            try Result<Int, TestError>.Publisher(5).tryMax { _, _ in throw TestError(code: 9) }.result.get()
        }
        _ = try? Result<Int, TestError>.Publisher(TestError(code: 1)).tryMin(by: recording).result.get()
        #expect(calls.count == 2)
    }
}
