import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Zip3")
struct Zip3Tests {
    @Test func groupsTheOldestUnconsumedValueOfEach() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        a.zip(b, c).subscribe(subscriber)
        a.send(1)
        a.send(2)
        b.send(1)
        b.send(2)
        #expect(subscriber.values.isEmpty)
        c.send(1)
        #expect(tupleStrings(subscriber) == ["(1, 1, 1)"])
        c.send(2)
        #expect(tupleStrings(subscriber) == ["(1, 1, 1)", "(2, 2, 2)"])
        c.send(completion: .finished)
        #expect(subscriber.completion == .finished)
    }

    @Test func synchronousUpstreams() {
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        [1, 2, 3].publisher.zip([1, 2].publisher, [1, 2, 3, 4].publisher).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Zip)", "value((1, 1, 1))", "value((2, 2, 2))", "finished"])
    }

    @Test func finishesOnceAFinishedUpstreamsValuesAreAllGroupedAndCancelsTheOthers() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        a.zip(b, c).subscribe(subscriber)
        b.send(1)
        b.send(completion: .finished)
        #expect(subscriber.completion == nil)
        a.send(1)
        c.send(1)
        #expect(tupleStrings(subscriber) == ["(1, 1, 1)"])
        #expect(subscriber.completion == .finished)
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 0)
        #expect(c.subscription.cancelCount == 1)
    }

    @Test func aFailureCancelsEveryUpstreamAndFailsOnce() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<Int, TestError>()
        let c = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<(Int, Int, Int), TestError>()
        a.zip(b, c).subscribe(subscriber)
        a.send(1)
        c.send(completion: .failure(TestError(code: 6)))
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 1)
        #expect(c.subscription.cancelCount == 1)  // the failing one too, as in Apple's Combine
        a.send(completion: .failure(TestError(code: 7)))
        #expect(subscriber.eventDescriptions == ["subscription(Zip)", "failure(TestError(code: 6))"])
    }

    @Test func limitedDemandIsRequestedFromEachUpstreamAndTuplesGoAsSoonAsComplete() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>(initialDemand: .max(3))
        a.zip(b, c).subscribe(subscriber)
        for value in 1...5 { a.send(value) }
        for value in 1...5 { b.send(value) }
        for value in 1...5 { c.send(value) }
        // As Apple's, every complete tuple goes, even beyond the demand (ManualPublisher ignores it).
        #expect(tupleStrings(subscriber) == ["(1, 1, 1)", "(2, 2, 2)", "(3, 3, 3)", "(4, 4, 4)", "(5, 5, 5)"])
        #expect(a.subscription.requests == [.max(3)])
        #expect(b.subscription.requests == [.max(3)])
        #expect(c.subscription.requests == [.max(3)])
        subscriber.request(.max(1))
        #expect(a.subscription.requests == [.max(3), .max(1)])
        #expect(b.subscription.requests == [.max(3), .max(1)])
        #expect(c.subscription.requests == [.max(3), .max(1)])
        #expect(subscriber.values.count == 5)
    }

    @Test func cancellingCancelsEveryUpstreamAndStopsEvents() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        a.zip(b, c).subscribe(subscriber)
        subscriber.cancel()
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 1)
        #expect(c.subscription.cancelCount == 1)
        a.send(1)
        b.send(1)
        c.send(1)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantSendRequestAndCancelFromReceive() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let subjects = [a, b, c]
        // The last upstream completes each tuple: as Apple's, it gets the re-entrant request back
        // only when its receive(_:) returns, so it needs demand of its own for what is sent meanwhile.
        let subscriber = TestSubscriber<(Int, Int, Int), Never>(initialDemand: .max(3))
        subscriber.onValue = { value, subscriber in
            if value.0 < 3 {
                subscriber.request(.max(1))
                for subject in subjects { subject.send(value.0 + 1) }
            } else {
                subscriber.cancel()
                for subject in subjects { subject.send(100) }
            }
            return .none
        }
        a.zip(b, c).subscribe(subscriber)
        for subject in subjects { subject.send(1) }
        #expect(tupleStrings(subscriber) == ["(1, 1, 1)", "(2, 2, 2)", "(3, 3, 3)"])
        #expect(subscriber.completion == nil)
    }

    @Test func concurrentUpstreamsAreGroupedInOrderAndDeliveredSerially() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let subjects = [a, b, c]
        let sink = RecordingSink<(Int, Int, Int)>()
        a.zip(b, c).subscribe(sink)
        let count = 1_000
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            for value in 1...count { subjects[thread].send(value) }
        }
        a.send(completion: .finished)
        let values = sink.values
        #expect(values.count == count)
        #expect(values.map { $0.0 + $0.1 + $0.2 } == (1...count).map { $0 * 3 })
        #expect(values.map(\.0) == Array(1...count))
        #expect(sink.detector.overlaps == 0)
        #expect(sink.completionCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ a.zip(b, c).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ a.zip(b, c).subscribe($0) }, end: { _ in c.send(completion: .finished) }))
    }

    @Test func descriptions() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        a.zip(b, c).subscribe(subscriber)
        #expect(a.subscriberDescription == "Zip")
        #expect(b.subscriberDescription == "Zip")
        #expect(c.subscriberDescription == "Zip")
        #expect(String(describing: subscriber.subscription!) == "Zip")
    }

    @Test func typesAndTheTransformForm() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        #expect(type(of: a.zip(b, c)) == Publishers.Zip3<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>>.self)
        #expect(type(of: a.zip(b, c) { $0 + $1 + $2 }) == Publishers.Map<Publishers.Zip3<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>>, Int>.self)
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2].publisher.zip([10, 20].publisher, [100, 200].publisher) { $0 + $1 + $2 }.subscribe(subscriber)
        #expect(subscriber.values == [111, 222])
        let zipped = Publishers.Zip3(Just(1), Just(2), Just(3))
        #expect(zipped.a == Just(1))
        #expect(zipped.b == Just(2))
        #expect(zipped.c == Just(3))
    }

    @Test func equatableWhenTheUpstreamsAre() {
        #expect(Publishers.Zip3(Just(0), Just(1), Just(2)) == Publishers.Zip3(Just(0), Just(1), Just(2)))
        #expect(Publishers.Zip3(Just(0), Just(1), Just(2)) != Publishers.Zip3(Just(0), Just(1), Just(9)))
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...30).publisher.zip((1...40).publisher, (1...40).publisher)
        }
    }
}
