import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.AssertNoFailure")
struct AssertNoFailureTests {
    @Test func passesValuesAndTheFinish() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.assertNoFailure().subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(1)", "value(2)", "finished",
        ])
    }

    @Test func demandPassesStraightThroughBothWays() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.assertNoFailure().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(3))
        subscriber.request(.max(4))
        #expect(upstream.subscription.requests == [.max(2), .max(4)])
        #expect(subscriber.values == [1])
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        Publishers.Sequence<ClosedRange<Int>, TestError>(sequence: 1...3).assertNoFailure().subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func equatable() {
        let a = Just(1).assertNoFailure("p", line: 1)
        #expect(a == Just(1).assertNoFailure("p", line: 1))
        #expect(a != Just(1).assertNoFailure("q", line: 1))
        #expect(a != Just(1).assertNoFailure("p", line: 2))
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3, 4]).assertNoFailure() }
    }

    @Test func failureStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Fail<Int, TestError>(error: TestError(code: 7)).assertNoFailure("Boom: ").sink { _ in }
        }
        if let result {
            let text = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(text.contains("Boom: TestError(code: 7)"))
        }
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension AssertNoFailureTests {
    @Test func theSubscriberPutUpstreamMirrorsFileLineAndPrefix() {
        let upstream = LatePublisher<Int, Never>()
        upstream.assertNoFailure("PREFIX", file: "SomeFile.swift", line: 1987).subscribe(TestSubscriber())
        let children = upstream.subscriber.map { Mirror(reflecting: $0).children } ?? Mirror(reflecting: 0).children
        #expect(children.map(\.label) == ["file", "line", "prefix"])
        #expect(children.map { String(describing: $0.value) } == ["SomeFile.swift", "1987", "PREFIX"])
    }
}
