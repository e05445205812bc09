import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Zip")
struct ZipTests {
    @Test func pairsTheOldestUnconsumedValueOfEach() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<String, Never>()
        let subscriber = TestSubscriber<(Int, String), Never>()
        a.zip(b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        #expect(subscriber.values.isEmpty)
        b.send("a")
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#])
        b.send("b")
        b.send("c")
        a.send(3)
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#, #"(2, "b")"#, #"(3, "c")"#])
        a.send(completion: .finished)
        #expect(subscriber.completion == .finished)
    }

    @Test func synchronousUpstreamsGiveCombinesResults() {
        let sequences = TestSubscriber<(Int, String), Never>()
        [1, 2, 3].publisher.zip(["a", "b"].publisher).subscribe(sequences)
        #expect(sequences.eventDescriptions == [
            "subscription(Zip)", #"value((1, "a"))"#, #"value((2, "b"))"#, "finished",
        ])

        let just = TestSubscriber<(Int, String), Never>()
        Just(1).zip(Just("a")).subscribe(just)
        #expect(just.eventDescriptions == ["subscription(Zip)", #"value((1, "a"))"#, "finished"])

        let empty = TestSubscriber<(Int, String), Never>()
        Empty<Int, Never>().zip(Just("a")).subscribe(empty)
        #expect(empty.eventDescriptions == ["subscription(Zip)", "finished"])
    }

    @Test func finishesOnceAFinishedUpstreamsValuesAreAllPairedAndCancelsTheOther() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<String, Never>()
        let subscriber = TestSubscriber<(Int, String), Never>()
        a.zip(b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        a.send(completion: .finished)
        #expect(subscriber.completion == nil)
        b.send("a")
        #expect(subscriber.completion == nil)
        #expect(b.subscription.cancelCount == 0)
        b.send("b")
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#, #"(2, "b")"#])
        #expect(subscriber.completion == .finished)
        #expect(b.subscription.cancelCount == 1)
        #expect(a.subscription.cancelCount == 0)
        b.send("c")
        #expect(subscriber.events.count == 4)
    }

    @Test func anUpstreamFinishingWithNothingToPairFinishesAtOnce() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        a.zip(b).subscribe(subscriber)
        a.send(1)
        b.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Zip)", "finished"])
        #expect(a.subscription.cancelCount == 1)
    }

    @Test func aFailureCancelsEveryUpstreamAndFailsOnce() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<String, TestError>()
        let subscriber = TestSubscriber<(Int, String), TestError>()
        a.zip(b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        b.send("a")
        a.send(completion: .failure(TestError(code: 7)))
        #expect(b.subscription.cancelCount == 1)
        #expect(a.subscription.cancelCount == 1)  // the failing one too, as in Apple's Combine
        b.send("b")
        b.send(completion: .failure(TestError(code: 8)))
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#])
        #expect(subscriber.completion == .failure(TestError(code: 7)))
        #expect(subscriber.events.count == 3)
    }

    /// Requests go to each upstream; as Apple's, a tuple goes downstream as soon as it is complete,
    /// even beyond the demand when an upstream sends more than it was asked for.
    @Test func limitedDemandIsRequestedFromEachUpstreamAndTuplesGoAsSoonAsComplete() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<String, Never>()
        let subscriber = TestSubscriber<(Int, String), Never>(initialDemand: .max(1))
        a.zip(b).subscribe(subscriber)
        #expect(a.subscription.requests == [.max(1)])
        #expect(b.subscription.requests == [.max(1)])
        a.send(1)
        a.send(2)
        b.send("a")
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#])
        b.send("b")  // beyond the demand
        #expect(tupleStrings(subscriber) == [#"(1, "a")"#, #"(2, "b")"#])
        subscriber.request(.max(3))
        #expect(a.subscription.requests == [.max(1), .max(3)])
        #expect(b.subscription.requests == [.max(1), .max(3)])
        a.send(3)
        b.send("c")
        #expect(subscriber.values.count == 3)
    }

    /// As Apple's: the demand returned from `receive(_:)` goes back to the upstream whose value
    /// completed the tuple, returned from its `receive(_:)`; the others are asked for it.
    @Test func demandReturnedFromReceiveGoesBackToTheUpstreamThatCompletedTheTuple() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(1))
        a.zip(b).subscribe(subscriber)
        #expect(a.send(1) == .none)
        #expect(b.send(1) == .max(1))
        #expect(a.subscription.requests == [.max(1), .max(1)])
        #expect(b.subscription.requests == [.max(1)])
        #expect(b.send(2) == .none)
        #expect(a.send(2) == .max(1))
        #expect(a.subscription.requests == [.max(1), .max(1)])
        #expect(b.subscription.requests == [.max(1), .max(1)])
    }

    /// As Apple's: a request made from inside `receive(_:)` is, for the upstream whose value
    /// completed the tuple, added to what its `receive(_:)` returns instead of requested.
    @Test func aRequestFromInsideReceiveIsReturnedToTheUpstreamThatCompletedTheTuple() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .unlimited, demandPerValue: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(5))
            return .none
        }
        a.zip(b).subscribe(subscriber)
        #expect(a.send(1) == .none)
        #expect(b.send(1) == .max(6))
        #expect(a.subscription.requests == [.unlimited, .max(5), .max(1)])
        #expect(b.subscription.requests == [.unlimited])
        // Outside a delivery, a request goes to both.
        subscriber.request(.max(2))
        #expect(a.subscription.requests == [.unlimited, .max(5), .max(1), .max(2)])
        #expect(b.subscription.requests == [.unlimited, .max(2)])
    }

    @Test func oneAtATimeFromSequences() {
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...5).publisher.zip((11...20).publisher).subscribe(subscriber)
        #expect(tupleStrings(subscriber) == ["(1, 11)", "(2, 12)", "(3, 13)", "(4, 14)", "(5, 15)"])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancellingCancelsBothUpstreamsAndStopsEvents() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        a.zip(b).subscribe(subscriber)
        a.send(1)
        subscriber.cancel()
        subscriber.cancel()
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 1)
        b.send(1)
        a.send(completion: .finished)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == nil)
    }

    @Test func aSinkSendingIntoTheUpstreamsFromReceiveGetsEveryPairInOrder() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        subscriber.onValue = { value, _ in
            if value.0 < 4 {
                a.send(value.0 + 1)
                a.send(value.0 + 2)
                b.send(value.1 + 1)
            }
            return .none
        }
        a.zip(b).subscribe(subscriber)
        a.send(1)
        b.send(10)
        // Pairs: (1,10) → sends a:2,3 b:11 → (2,11) → a:3,4 b:12 → (3,12) → a:4,5 b:13 → (3,13)...
        #expect(tupleStrings(subscriber) == ["(1, 10)", "(2, 11)", "(3, 12)", "(3, 13)", "(4, 14)"])
    }

    @Test func reentrantRequestFromReceive() {
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        (1...3).publisher.zip((1...9).publisher).subscribe(subscriber)
        #expect(tupleStrings(subscriber) == ["(1, 1)", "(2, 2)", "(3, 3)"])
        #expect(subscriber.completion == .finished)
    }

    @Test func reentrantCancelFromReceive() {
        let subscriber = TestSubscriber<(Int, Int), Never>()
        subscriber.onValue = { value, subscriber in
            if value.0 == 2 { subscriber.cancel() }
            return .none
        }
        (1...9).publisher.zip((1...9).publisher).subscribe(subscriber)
        #expect(tupleStrings(subscriber) == ["(1, 1)", "(2, 2)"])
        #expect(subscriber.completion == nil)
    }

    @Test func concurrentUpstreamsArePairedInOrderAndDeliveredSerially() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let sink = RecordingSink<(Int, Int)>()
        a.zip(b).subscribe(sink)
        let count = 3_000
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let subject = thread == 0 ? a : b
            for value in 1...count { subject.send(value) }
        }
        b.send(completion: .finished)
        let values = sink.values
        #expect(values.count == count)
        #expect(values.allSatisfy { $0.0 == $0.1 })
        #expect(values.map(\.0) == Array(1...count))
        #expect(sink.detector.overlaps == 0)
        #expect(sink.completionCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ a.zip(b).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ a.zip(b).subscribe($0) }, end: { _ in a.send(completion: .finished) }))
        let c = PassthroughSubject<Int, TestError>()
        let d = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ c.zip(d).subscribe($0) }, end: { _ in
            c.send(completion: .failure(TestError()))
        }))
    }

    @Test func nothingKeepsTheSubscriptionAliveAfterTheEndOrACancel() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var finished: AnyObject?
        weak var cancelled: AnyObject?
        do {
            let subscriber = TestSubscriber<(Int, Int), Never>()
            a.zip(b).subscribe(subscriber)
            finished = subscriber.subscription as AnyObject?
            a.send(1)
            b.send(completion: .finished)  // cancels `a`, which releases its subscriber
            let other = TestSubscriber<(Int, Int), Never>()
            a.zip(b).subscribe(other)
            cancelled = other.subscription as AnyObject?
            other.cancel()
        }
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test func descriptions() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        a.zip(b).subscribe(subscriber)
        #expect(a.subscriberDescription == "Zip")
        #expect(b.subscriberDescription == "Zip")
        #expect(String(describing: subscriber.subscription!) == "Zip")
    }

    @Test func types() {
        let a = PassthroughSubject<Int, Never>()
        let b = Just("x")
        #expect(type(of: a.zip(b)) == Publishers.Zip<PassthroughSubject<Int, Never>, Just<String>>.self)
        #expect(type(of: a.zip(b) { "\($0)\($1)" })
            == Publishers.Map<Publishers.Zip<PassthroughSubject<Int, Never>, Just<String>>, String>.self)
        let zipped = Publishers.Zip(Just(1), Just("a"))
        #expect(zipped.a == Just(1))
        #expect(zipped.b == Just("a"))
    }

    @Test func transformFormZipsWithTheClosure() {
        let subscriber = TestSubscriber<String, Never>()
        [1, 2, 3].publisher.zip(["a", "b"].publisher) { "\($0)\($1)" }.subscribe(subscriber)
        #expect(subscriber.values == ["1a", "2b"])
        #expect(subscriber.completion == .finished)
    }

    @Test func equatableWhenTheUpstreamsAre() {
        #expect(Publishers.Zip(Just(1), Just(2)) == Publishers.Zip(Just(1), Just(2)))
        #expect(Publishers.Zip(Just(1), Just(2)) != Publishers.Zip(Just(0), Just(2)))
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...40).publisher.zip((1...50).publisher) }
        try await PublisherContract.verify {
            (1...9).publisher.tryMap { value in
                if value == 6 { throw TestError() }
                return value
            }.zip((1...9).publisher.setFailureType(to: (any Error).self))
        }
        try await PublisherContract.verify {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(a.zip(b)) {
                for value in 1...20 {
                    a.send(value)
                    b.send(value)
                }
                a.send(completion: .finished)
            }
        }
    }
}
