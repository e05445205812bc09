import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Retry")
struct RetryTests {
    @Test func retriesThenPassesTheFailure() {
        var attempts = 0
        let subscriber = TestSubscriber<Int, TestError>()
        Deferred { () -> Record<Int, TestError> in
            attempts += 1
            return Record(output: [attempts], completion: .failure(TestError(code: attempts)))
        }.retry(2).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .failure(TestError(code: 3)))
        #expect(subscriber.eventDescriptions.first == "subscription(Retry)")
    }

    @Test func synchronousFailureWithManyRetriesDoesNotOverflow() {
        let subscriber = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 1)).retry(100_000).subscribe(subscriber)
        #expect(subscriber.completion == .failure(TestError(code: 1)))
    }

    @Test func carriesOverOutstandingDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3))
        upstream.retry(1).subscribe(subscriber)
        _ = upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(upstream.subscription.requests == [.max(3), .max(2)])  // 3 first, then the 2 still owed
    }

    @Test func demandReturnedFromReceiveIsRequested() {
        // As in Apple's Combine: requested from the upstream rather than returned to it.
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), demandPerValue: .max(5))
        upstream.retry(1).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.subscription.requests == [.max(3), .max(5)])
    }

    @Test func aNegativeCountRetriesForever() {
        // As in Apple's Combine.
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(-1).subscribe(subscriber)
        for _ in 0..<5 { upstream.send(completion: .failure(TestError())) }
        #expect(upstream.subscriberCount == 6)
        #expect(subscriber.completion == nil)
    }

    @Test func aValueNobodyAskedForStopsTheProgram() async {
        // As in Apple's Combine.
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            upstream.retry(1).subscribe(TestSubscriber<Int, TestError>(initialDemand: .none))
            _ = upstream.send(1)
        }
    }

    @Test func descriptionAndMirror() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(1).subscribe(subscriber)
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription) == "Retry")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Retry")
    }

    @Test func cancelCancelsTheCurrentUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(1).subscribe(subscriber)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(subscriber.completion == nil)
    }

    @Test func resubscribesTheUpstreamOncePerRetryAndFinishesWithoutRetrying() {
        var subscriptions = 0
        let subscriber = TestSubscriber<Int, TestError>()
        Deferred { () -> Record<Int, TestError> in
            subscriptions += 1
            return subscriptions < 3
                ? Record(output: [subscriptions], completion: .failure(TestError(code: subscriptions)))
                : Record(output: [subscriptions], completion: .finished)
        }.retry(5).subscribe(subscriber)
        #expect(subscriptions == 3)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func reentrantCancelFromReceiveStopsRetrying() {
        var subscriptions = 0
        let subscriber = TestSubscriber<Int, TestError>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        Deferred { () -> Record<Int, TestError> in
            subscriptions += 1
            return Record(output: [subscriptions], completion: .failure(TestError(code: subscriptions)))
        }.retry(10).subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
        #expect(subscriptions == 2)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ subject.retry(2).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.retry(2).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        #expect(!subscriberSurvives({ Fail<Int, TestError>(error: TestError()).retry(3).subscribe($0) },
                                    end: { _ in }))
    }

    @Test func cancelRacingValuesIsThreadSafeAndFinal() {
        for _ in 0..<200 {
            let subject = PassthroughSubject<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>()
            subject.retry(3).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for value in 0..<50 { subject.send(value) }
                } else {
                    subscriber.cancel()
                }
            }
            subject.send(99)
            subject.send(completion: .failure(TestError()))
            // Whatever got through before the cancel is a prefix, in order; nothing after it.
            #expect(subscriber.values == Array(0..<subscriber.values.count))
            #expect(subscriber.completion == nil)
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(code: 1))).retry(2)
        }
    }
}

extension RetryTests {
    @Test func fusedOnJustOptionalAndResult() {
        #expect(type(of: Just(1).retry(3)) == Just<Int>.self)
        #expect(Just(1).retry(3) == Just(1))
        #expect(type(of: Optional(2).publisher.retry(3)) == Optional<Int>.Publisher.self)
        #expect(Optional(2).publisher.retry(3) == Optional(2).publisher)
        #expect(type(of: Result<Int, TestError>.Publisher(3).retry(3)) == Result<Int, TestError>.Publisher.self)
        #expect(Result<Int, TestError>.Publisher(TestError(code: 2)).retry(3).result == .failure(TestError(code: 2)))
    }
}
