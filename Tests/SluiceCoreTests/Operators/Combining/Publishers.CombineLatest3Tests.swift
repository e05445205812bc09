import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.CombineLatest3")
struct CombineLatest3Tests {
    @Test func publishesTheLatestOfEachOnceAllHaveAValue() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        a.combineLatest(b, c).subscribe(subscriber)
        a.send(1)
        b.send(2)
        #expect(subscriber.values.isEmpty)
        c.send(3)
        a.send(10)
        c.send(20)
        #expect(tupleStrings(subscriber) == ["(1, 2, 3)", "(10, 2, 3)", "(10, 2, 20)"])
        a.send(completion: .finished)
        b.send(completion: .finished)
        #expect(subscriber.completion == nil)
        c.send(completion: .finished)
        #expect(subscriber.completion == .finished)
    }

    @Test func synchronousUpstreams() {
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        [1, 2, 3].publisher.combineLatest([20].publisher, [30].publisher).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(CombineLatest)", "value((3, 20, 30))", "finished"])
    }

    @Test func aFailureCancelsTheOtherUpstreamsAndFailsOnce() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<Int, TestError>()
        let c = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<(Int, Int, Int), TestError>()
        a.combineLatest(b, c).subscribe(subscriber)
        a.send(1)
        b.send(1)
        c.send(1)
        b.send(completion: .failure(TestError(code: 4)))
        #expect(a.subscription.cancelCount == 1)
        #expect(c.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 0)
        a.send(2)
        a.send(completion: .failure(TestError(code: 5)))
        #expect(tupleStrings(subscriber) == ["(1, 1, 1)"])
        #expect(subscriber.completion == .failure(TestError(code: 4)))
        #expect(subscriber.events.count == 3)
    }

    @Test func limitedDemandIsPassedToEveryUpstreamAndHonoured() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>(initialDemand: .max(2))
        a.combineLatest(b, c).subscribe(subscriber)
        a.send(1)
        b.send(1)
        c.send(1)
        a.send(2)
        a.send(3)
        #expect(subscriber.values.map(\.0) == [1, 2])
        #expect(a.subscription.requests == [.max(2)])
        #expect(b.subscription.requests == [.max(2)])
        #expect(c.subscription.requests == [.max(2)])
        subscriber.request(.max(1))
        #expect(subscriber.values.map(\.0) == [1, 2, 3])
        #expect(a.subscription.requests == [.max(2), .max(1)])
        #expect(b.subscription.requests == [.max(2), .max(1)])
        #expect(c.subscription.requests == [.max(2), .max(1)])
        a.send(4)
        #expect(subscriber.values.count == 3)
    }

    @Test func cancellingCancelsEveryUpstreamAndStopsEvents() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        a.combineLatest(b, c).subscribe(subscriber)
        a.send(1)
        b.send(1)
        c.send(1)
        subscriber.cancel()
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 1)
        #expect(c.subscription.cancelCount == 1)
        a.send(2)
        a.send(completion: .finished)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantSendRequestAndCancelFromReceive() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>(initialDemand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value.0 < 3 {
                subscriber.request(.max(1))
                a.send(value.0 + 1)
            } else {
                subscriber.cancel()
                a.send(100)
            }
            return .none
        }
        a.combineLatest(b, c).subscribe(subscriber)
        a.send(1)
        b.send(1)
        c.send(1)
        #expect(subscriber.values.map(\.0) == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func concurrentUpstreamsAreDeliveredSeriallyWithNothingLost() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let subjects = [a, b, c]
        let sink = RecordingSink<(Int, Int, Int)>()
        a.combineLatest(b, c).subscribe(sink)
        for subject in subjects { subject.send(0) }
        let count = 1_000
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            for value in 1...count { subjects[thread].send(value) }
        }
        for subject in subjects { subject.send(completion: .finished) }
        let sums = sink.values.map { $0.0 + $0.1 + $0.2 }
        #expect(sink.values.count == 1 + 3 * count)
        #expect(sums == Array(0...(3 * count)))  // every value moves the combination by one
        #expect(sink.detector.overlaps == 0)
        #expect(sink.completionCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ a.combineLatest(b, c).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ a.combineLatest(b, c).subscribe($0) }, end: { _ in
            for subject in [a, b, c] { subject.send(completion: .finished) }
        }))
    }

    @Test func descriptions() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        a.combineLatest(b, c).subscribe(subscriber)
        #expect(a.subscriberDescription == "CombineLatest")
        #expect(b.subscriberDescription == "CombineLatest")
        #expect(c.subscriberDescription == "CombineLatest")
        #expect(String(describing: subscriber.subscription!) == "CombineLatest")
    }

    @Test func typesAndTheTransformForm() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        #expect(type(of: a.combineLatest(b, c)) == Publishers.CombineLatest3<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>>.self)
        #expect(type(of: a.combineLatest(b, c) { $0 + $1 + $2 }) == Publishers.Map<Publishers.CombineLatest3<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>>, Int>.self)
        let subscriber = TestSubscriber<Int, Never>()
        Just(1).combineLatest(Just(10), Just(100)) { $0 + $1 + $2 }.subscribe(subscriber)
        #expect(subscriber.values == [111])
        let combined = Publishers.CombineLatest3(Just(1), Just(2), Just(3))
        #expect(combined.a == Just(1))
        #expect(combined.b == Just(2))
        #expect(combined.c == Just(3))
    }

    @Test func equatableWhenTheUpstreamsAre() {
        #expect(Publishers.CombineLatest3(Just(0), Just(1), Just(2)) == Publishers.CombineLatest3(Just(0), Just(1), Just(2)))
        #expect(Publishers.CombineLatest3(Just(0), Just(1), Just(2)) != Publishers.CombineLatest3(Just(0), Just(1), Just(9)))
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (1...20).publisher.combineLatest([2, 20].publisher, [3, 30].publisher)
        }
    }
}
