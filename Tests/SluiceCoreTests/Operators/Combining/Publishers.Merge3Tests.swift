import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Merge3")
struct Merge3Tests {
    typealias Manual = ManualPublisher<Int, TestError>

    @Test func synchronousUpstreamsDeliverInOrder() {
        let subscriber = TestSubscriber<Int, Never>()
        Just(1).merge(with: [2, 3].publisher, Just(4).eraseToAnyPublisher()).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(Merge)", "value(1)", "value(2)", "value(3)", "value(4)", "finished",
        ])
    }

    @Test func finishesWhenAllThreeFinish() {
        let (a, b, c) = (Manual(), Manual(), Manual())
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Merge3(a, b, c).subscribe(subscriber)
        c.send(3)
        a.send(1)
        b.send(2)
        a.send(completion: .finished)
        c.send(completion: .finished)
        #expect(subscriber.completion == nil)
        b.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Merge)", "value(3)", "value(1)", "value(2)", "finished"])
    }

    @Test func failureCancelsTheOthers() {
        let (a, b, c) = (Manual(), Manual(), Manual())
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Merge3(a, b, c).subscribe(subscriber)
        b.send(completion: .failure(TestError(code: 9)))
        c.send(1)
        #expect(subscriber.eventDescriptions == ["subscription(Merge)", "failure(TestError(code: 9))"])
        #expect(a.subscription.cancelCount == 1)
        #expect(b.subscription.cancelCount == 0)
        #expect(c.subscription.cancelCount == 1)
    }

    @Test func limitedDemandAcrossUpstreams() {
        let (a, b, c) = (Manual(), Manual(), Manual())
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), demandPerValue: .none)
        Publishers.Merge3(a, b, c).subscribe(subscriber)
        for upstream in [a, b, c] { #expect(upstream.subscription.requests == [.max(2)]) }
        a.send(1)
        b.send(2)
        c.send(3)
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        for upstream in [a, b, c] { #expect(upstream.subscription.requests == [.max(2), .max(1)]) }
    }

    @Test func cancelCancelsAllThree() {
        let (a, b, c) = (Manual(), Manual(), Manual())
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Merge3(a, b, c).subscribe(subscriber)
        subscriber.cancel()
        c.send(1)
        #expect(subscriber.values.isEmpty)
        for upstream in [a, b, c] { #expect(upstream.subscription.cancelCount == 1) }
    }

    @Test func reentrantCancelFromReceive() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 3 { subscriber.cancel() }
            return .none
        }
        Publishers.Merge3([1].publisher, [2, 3, 4].publisher, [5].publisher).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func concurrentSendsArriveSerialised() {
        let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
        let result = runMergeStress(subjects: subjects, perSource: 1_000,
                                    merged: Publishers.Merge3(subjects[0], subjects[1], subjects[2]))
        #expect(result.values.count == 3_000)
        #expect(result.overlaps == 0)
        #expect(result.perSourceOrderHolds(sources: 3, perSource: 1_000))
        #expect(result.finished)
    }

    @Test func releasesTheSubscriber() {
        let (a, b, c) = (PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>(),
                         PassthroughSubject<Int, Never>())
        #expect(!subscriberSurvives({ Publishers.Merge3(a, b, c).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ Publishers.Merge3(a, b, c).subscribe($0) }, end: { _ in
            for subject in [a, b, c] { subject.send(completion: .finished) }
        }))
    }

    @Test func descriptions() {
        let (a, b, c) = (Manual(), Manual(), Manual())
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Merge3(a, b, c).subscribe(subscriber)
        #expect(c.subscriberDescription == "Merge")
        #expect(String(describing: subscriber.subscription!) == "Merge")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            Publishers.Merge3((1...5).publisher, (6...10).publisher, (11...15).publisher)
        }
        try await PublisherContract.verify {
            Publishers.Merge3((1...5).publisher.setFailureType(to: TestError.self), Fail(error: TestError()),
                              (6...10).publisher.setFailureType(to: TestError.self))
        }
    }

    @Test func propertiesAndEquatable() {
        let merge = Publishers.Merge3(Just(1), Just(2), Just(3))
        #expect(merge.a == Just(1) && merge.b == Just(2) && merge.c == Just(3))
        #expect(merge == Publishers.Merge3(Just(1), Just(2), Just(3)))
        #expect(merge != Publishers.Merge3(Just(1), Just(2), Just(4)))
    }

    @Test func types() {
        typealias J = Just<Int>
        let j = Just(1)
        let e = Empty<Int, Never>()
        #expect(type(of: j.merge(with: e, j)) == Publishers.Merge3<J, Empty<Int, Never>, J>.self)
        let merge = Publishers.Merge3(j, j, j)
        #expect(type(of: merge.merge(with: e)) == Publishers.Merge4<J, J, J, Empty<Int, Never>>.self)
        #expect(type(of: merge.merge(with: e, e)) == Publishers.Merge5<J, J, J, Empty<Int, Never>, Empty<Int, Never>>.self)
        #expect(type(of: merge.merge(with: j, j, j)) == Publishers.Merge6<J, J, J, J, J, J>.self)
        #expect(type(of: merge.merge(with: j, j, j, j)) == Publishers.Merge7<J, J, J, J, J, J, J>.self)
        #expect(type(of: merge.merge(with: j, j, j, j, j)) == Publishers.Merge8<J, J, J, J, J, J, J, J>.self)
    }
}
