import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Catch")
struct CatchTests {
    private func failing(_ values: [Int]) -> Record<Int, TestError> {
        Record(output: values, completion: .failure(TestError(code: 1)))
    }

    @Test func replacesTheFailedUpstream() {
        let subscriber = TestSubscriber<Int, Never>()
        failing([1, 2]).catch { _ in Just(9) }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 9])
        #expect(subscriber.completion == .finished)
    }

    @Test func aValueNobodyAskedForStopsTheProgram() async {
        // As in Apple's Combine.
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            upstream.catch { _ in Just(1) }.subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
            _ = upstream.send(1)
        }
    }

    @Test func theFailedUpstreamFailingAgainStopsTheProgram() async {
        // As in Apple's Combine.
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            upstream.catch { _ in Empty<Int, Never>(completeImmediately: false) }
                .subscribe(TestSubscriber<Int, Never>())
            upstream.send(completion: .failure(TestError()))
            upstream.send(completion: .failure(TestError()))
        }
    }

    @Test func aCompletionBeforeTheSubscriptionIsIgnored() {
        // As in Apple's Combine.
        struct CompletesFirst: Publisher {
            typealias Output = Int
            typealias Failure = TestError
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
                subscriber.receive(completion: .failure(TestError()))
                subscriber.receive(completion: .finished)
            }
        }
        let subscriber = TestSubscriber<Int, Never>()
        CompletesFirst().catch { _ in Just(1) }.subscribe(subscriber)
        #expect(subscriber.events.isEmpty)
    }

    @Test func descriptionAndMirror() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.catch { _ in Just(1) }.subscribe(subscriber)
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription) == "Catch")
        #expect(Mirror(reflecting: subscription).children.map(\.label) == ["downstream", "demand"])
        #expect(Mirror(reflecting: subscription).children.map { String(describing: $0.value) }.last == "max(2)")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Catch")
    }

    @Test func finishedPassesThroughWithoutTheHandler() {
        var calls = 0
        let subscriber = TestSubscriber<Int, Never>()
        Record<Int, TestError>(output: [1], completion: .finished).catch { _ -> Just<Int> in calls += 1; return Just(0) }
            .subscribe(subscriber)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .finished)
        #expect(calls == 0)
    }

    @Test func newPublisherFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, TestError>()
        failing([1]).catch { _ in Fail<Int, TestError>(error: TestError(code: 2)) }.subscribe(subscriber)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .failure(TestError(code: 2)))
    }

    @Test func carriesOverOutstandingDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        upstream.catch { _ in replacement }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(3)])
        _ = upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(replacement.subscription.requests == [.max(2)])
        #expect(subscriber.eventDescriptions.first == "subscription(Catch)")
    }

    @Test func limitedDemandAcrossTheSwitch() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        failing([1]).catch { _ in (10...20).publisher }.subscribe(subscriber)
        #expect(subscriber.values == [1, 10, 11])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 10, 11, 12])
    }

    @Test func cancelBeforeTheSwitchCancelsUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        var calls = 0
        let subscriber = TestSubscriber<Int, Never>()
        upstream.catch { _ -> Just<Int> in calls += 1; return Just(0) }.subscribe(subscriber)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(calls == 0)
        #expect(subscriber.completion == nil)
    }

    @Test func cancelAfterTheSwitchCancelsTheReplacement() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.catch { _ in replacement }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 1)))
        subscriber.cancel()
        #expect(replacement.subscription.cancelCount == 1)
        _ = replacement.send(5)
        #expect(subscriber.values == [])
    }

    @Test func reentrantCancelInsideReceiveStopsEverything() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        let replacement = ManualPublisher<Int, Never>()
        let upstream = ManualPublisher<Int, TestError>()
        upstream.catch { _ in replacement }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 1)))
        let token = replacement.send(1)
        subscriber.cancel()
        #expect(token == .none)
        #expect(replacement.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
        #expect(replacement.send(2) == .none)
        #expect(subscriber.values == [1])
    }

    @Test func releasesTheSubscriberAfterCompletion() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            failing([1]).catch { _ in Just(2) }.subscribe(subscriber)
            #expect(subscriber.completion == .finished)
        }
        #expect(weakSubscriber == nil)
    }

    @Test func failureRacingCancelDeliversNothingAfterCancel() async {
        for _ in 0..<200 {
            let upstream = ManualPublisher<Int, TestError>()
            let replacement = ManualPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            upstream.catch { _ in replacement }.subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { upstream.send(completion: .failure(TestError(code: 1))) }
                group.addTask { subscriber.cancel() }
            }
            // If the failure won the race, the replacement was subscribed (and then cancelled):
            // whatever it sends now must not arrive. If the cancel won, it was never subscribed.
            if !replacement.subscriberIdentifiers.isEmpty {
                _ = replacement.send(1)
            }
            #expect(subscriber.values == [])
            #expect(subscriber.completion == nil)
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError(code: 1)))
                .catch { _ in Record<Int, Never>(output: [4, 5], completion: .finished) }
        }
    }
}
