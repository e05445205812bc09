import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.CombineLatest")
struct CombineLatestTests {
    @Test func publishesTheLatestOfEachOnceBothHaveAValue() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<String, Never>()
        let subscriber = TestSubscriber<(Int, String), Never>()
        a.combineLatest(b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        #expect(subscriber.values.isEmpty)
        b.send("a")
        a.send(3)
        b.send("b")
        #expect(tupleStrings(subscriber) == [#"(2, "a")"#, #"(3, "a")"#, #"(3, "b")"#])
        a.send(completion: .finished)
        #expect(subscriber.completion == nil)
        b.send("c")
        #expect(tupleStrings(subscriber).last == #"(3, "c")"#)
        b.send(completion: .finished)
        #expect(subscriber.completion == .finished)
        #expect(subscriber.events.count == 6)
    }

    @Test func synchronousUpstreamsGiveCombinesResults() {
        let just = TestSubscriber<(Int, String), Never>()
        Just(1).combineLatest(Just("a")).subscribe(just)
        #expect(just.eventDescriptions == ["subscription(CombineLatest)", #"value((1, "a"))"#, "finished"])

        let sequences = TestSubscriber<(Int, String), Never>()
        [1, 2, 3].publisher.combineLatest(["a", "b"].publisher).subscribe(sequences)
        #expect(sequences.eventDescriptions == [
            "subscription(CombineLatest)", #"value((3, "a"))"#, #"value((3, "b"))"#, "finished",
        ])
    }

    @Test func finishesOnlyWhenEveryUpstreamHasFinished() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        a.combineLatest(b).subscribe(subscriber)
        a.send(completion: .finished)  // without a value: nothing can ever be published
        #expect(subscriber.completion == nil)
        b.send(1)
        #expect(subscriber.values.isEmpty)
        b.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(CombineLatest)", "finished"])
        #expect(a.subscription.cancelCount == 0 && b.subscription.cancelCount == 0)
    }

    @Test func aFailureCancelsTheOtherUpstreamAndFailsOnce() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<String, TestError>()
        let subscriber = TestSubscriber<(Int, String), TestError>()
        a.combineLatest(b).subscribe(subscriber)
        a.send(1)
        b.send("a")
        b.send(completion: .failure(TestError(code: 2)))
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 0)
        a.send(2)
        a.send(completion: .failure(TestError(code: 3)))
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#])
        #expect(subscriber.completion == .failure(TestError(code: 2)))
        #expect(subscriber.events.count == 3)
    }

    @Test func anImmediateFailureArrivesAfterTheSubscription() {
        let subscriber = TestSubscriber<(Int, Int), TestError>()
        Fail<Int, TestError>(error: TestError(code: 5)).combineLatest(Just(1).setFailureType(to: TestError.self))
            .subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(CombineLatest)", "failure(TestError(code: 5))"])
    }

    @Test func limitedDemandIsPassedToEveryUpstreamAndHonoured() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<String, Never>()
        let subscriber = TestSubscriber<(Int, String), Never>(initialDemand: .max(1))
        a.combineLatest(b).subscribe(subscriber)
        #expect(a.subscription.requests == [.max(1)])
        #expect(b.subscription.requests == [.max(1)])
        a.send(1)
        b.send("a")
        a.send(2)
        a.send(3)
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#])
        // The latest values were kept; demand publishes them.
        subscriber.request(.max(1))
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#, #"(3, "a")"#])
        #expect(a.subscription.requests == [.max(1), .max(1)])
        #expect(b.subscription.requests == [.max(1), .max(1)])
        // Nothing new since: the next demand waits for a value.
        subscriber.request(.max(1))
        #expect(subscriber.values.count == 2)
        b.send("b")
        #expect(tupleStrings(subscriber).last == #"(3, "b")"#)
    }

    @Test func demandReturnedFromReceiveGoesToEveryUpstream() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(2))
        a.combineLatest(b).subscribe(subscriber)
        #expect(a.send(1) == .none)
        #expect(b.send(1) == .none)
        #expect(a.subscription.requests == [.max(1), .max(2)])
        #expect(b.subscription.requests == [.max(1), .max(2)])
    }

    @Test func cancellingCancelsBothUpstreamsAndStopsEvents() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        a.combineLatest(b).subscribe(subscriber)
        a.send(1)
        b.send(1)
        subscriber.cancel()
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 1)
        a.send(2)
        b.send(completion: .finished)
        a.send(completion: .finished)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == nil)
    }

    @Test func aSinkSendingIntoAnUpstreamFromReceiveGetsEveryCombinationInOrder() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<String, Never>()
        let subscriber = TestSubscriber<(Int, String), Never>()
        subscriber.onValue = { value, _ in
            if value.0 < 3 { a.send(value.0 + 1) }
            if value.0 == 3 && value.1 == "a" { b.send("b") }
            return .none
        }
        a.combineLatest(b).subscribe(subscriber)
        a.send(1)
        b.send("a")
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#, #"(2, "a")"#, #"(3, "a")"#, #"(3, "b")"#])
    }

    @Test func reentrantRequestFromReceive() {
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        Just(0).combineLatest([1, 2, 3].publisher).subscribe(subscriber)
        #expect(tupleStrings(subscriber) == ["(0, 1)", "(0, 2)", "(0, 3)"])
        #expect(subscriber.completion == .finished)
    }

    @Test func reentrantCancelFromReceive() {
        let subscriber = TestSubscriber<(Int, Int), Never>()
        subscriber.onValue = { value, subscriber in
            if value.1 == 2 { subscriber.cancel() }
            return .none
        }
        Just(0).combineLatest((1...9).publisher).subscribe(subscriber)
        #expect(tupleStrings(subscriber) == ["(0, 1)", "(0, 2)"])
        #expect(subscriber.completion == nil)
    }

    @Test func concurrentUpstreamsAreDeliveredSeriallyWithNothingLost() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let sink = RecordingSink<(Int, Int)>()
        a.combineLatest(b).subscribe(sink)
        a.send(0)
        b.send(0)
        let count = 2_000
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let subject = thread == 0 ? a : b
            for value in 1...count { subject.send(value) }
        }
        a.send(completion: .finished)
        b.send(completion: .finished)
        let values = sink.values
        #expect(values.count == 1 + 2 * count)
        #expect(sink.detector.overlaps == 0)
        #expect(sink.completionCount == 1)
        // Each combination differs from the previous one by exactly one upstream's next value.
        var brokenSteps = 0
        for (previous, next) in zip(values, values.dropFirst()) {
            let stepA = next.0 - previous.0
            let stepB = next.1 - previous.1
            if !((stepA == 1 && stepB == 0) || (stepA == 0 && stepB == 1)) { brokenSteps += 1 }
        }
        #expect(brokenSteps == 0)
        #expect(values.first.map { "\($0)" } == "(0, 0)")
        #expect(values.last.map { "\($0)" } == "(\(count), \(count))")
    }

    @Test func releasesTheSubscriber() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ a.combineLatest(b).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ a.combineLatest(b).subscribe($0) }, end: { _ in
            a.send(completion: .finished)
            b.send(completion: .finished)
        }))
        let c = PassthroughSubject<Int, TestError>()
        let d = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ c.combineLatest(d).subscribe($0) }, end: { _ in
            d.send(completion: .failure(TestError()))
        }))
    }

    @Test func nothingKeepsTheSubscriptionAliveAfterAFailureOrACancel() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        weak var failed: AnyObject?
        weak var cancelled: AnyObject?
        do {
            let subscriber = TestSubscriber<(Int, Int), TestError>()
            a.combineLatest(b).subscribe(subscriber)
            failed = subscriber.subscription as AnyObject?
            let other = TestSubscriber<(Int, Int), TestError>()
            a.combineLatest(b).subscribe(other)
            cancelled = other.subscription as AnyObject?
            other.cancel()
            b.send(completion: .failure(TestError()))  // the first cancels `a`, which releases it
        }
        #expect(failed == nil)
        #expect(cancelled == nil)
    }

    @Test func descriptions() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        a.combineLatest(b).subscribe(subscriber)
        #expect(a.subscriberDescription == "CombineLatest")
        #expect(b.subscriberDescription == "CombineLatest")
        #expect(String(describing: subscriber.subscription!) == "CombineLatest")
    }

    @Test func types() {
        let a = PassthroughSubject<Int, Never>()
        let b = Just("x")
        #expect(type(of: a.combineLatest(b)) == Publishers.CombineLatest<PassthroughSubject<Int, Never>, Just<String>>.self)
        #expect(type(of: a.combineLatest(b) { "\($0)\($1)" })
            == Publishers.Map<Publishers.CombineLatest<PassthroughSubject<Int, Never>, Just<String>>, String>.self)
        let combined = Publishers.CombineLatest(Just(1), Just("a"))
        #expect(combined.a == Just(1))
        #expect(combined.b == Just("a"))
    }

    @Test func transformFormCombinesWithTheClosure() {
        let subscriber = TestSubscriber<String, Never>()
        [1, 2].publisher.combineLatest(["a"].publisher) { "\($0)\($1)" }.subscribe(subscriber)
        #expect(subscriber.values == ["2a"])
        #expect(subscriber.completion == .finished)
    }

    @Test func equatableWhenTheUpstreamsAre() {
        #expect(Publishers.CombineLatest(Just(1), Just(2)) == Publishers.CombineLatest(Just(1), Just(2)))
        #expect(Publishers.CombineLatest(Just(1), Just(2)) != Publishers.CombineLatest(Just(1), Just(3)))
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...20).publisher.combineLatest([100, 200].publisher) }
        try await PublisherContract.verify {
            Just(0).setFailureType(to: (any Error).self).combineLatest((1...9).publisher.tryMap { value in
                if value == 5 { throw TestError() }
                return value
            })
        }
        try await PublisherContract.verify {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(a.combineLatest(b)) {
                a.send(0)
                for value in 1...20 {
                    b.send(value)
                    a.send(value)
                }
                a.send(completion: .finished)
                b.send(completion: .finished)
            }
        }
    }
}
