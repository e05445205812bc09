import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryReduce")
struct TryReduceTests {
    @Test func accumulatesAndPublishesAtFinish() {
        let subscriber = TestSubscriber<Int, any Error>()
        (1...4).publisher.eraseToAnyPublisher().tryReduce(0) { $0 + $1 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(TryReduce)", "value(10)", "finished"])
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryReduce(0) { sum, value in
            if value == 2 { throw TestError(code: 2) }
            return sum + value
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(TryReduce)", "failure(TestError(code: 2))"])
    }

    @Test func upstreamFailurePassesThrough() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, any Error>()
        subject.tryReduce(0) { $0 + $1 }.subscribe(subscriber)
        subject.send(completion: .failure(TestError(code: 8)))
        #expect(subscriber.eventDescriptions == ["subscription(TryReduce)", "failure(TestError(code: 8))"])
    }

    @Test func nothingBeforeDemand() {
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
        (1...3).publisher.eraseToAnyPublisher().tryReduce(0) { $0 + $1 }.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [6])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().tryReduce(0) { $0 + $1 } }
        try await PublisherContract.verify {
            (1...5).publisher.eraseToAnyPublisher().tryReduce(0) { _, _ in throw TestError() }
        }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryReduce(0) { $0 + $1 })
            == Publishers.TryReduce<PassthroughSubject<Int, Never>, Int>.self)
        let sequence: Result<Int, any Error>.Publisher = [1, 2].publisher.tryReduce(0) { $0 + $1 }
        #expect((try? sequence.result.get()) == 3)
        let throwing = [1, 2].publisher.tryReduce(0) { _, _ in throw TestError(code: 4) }
        #expect(throws: TestError(code: 4)) { try throwing.result.get() }
        let just: Result<Int, any Error>.Publisher = Just(2).tryReduce(1) { $0 + $1 }
        #expect((try? just.result.get()) == 3)
        let result = Result<Int, TestError>.Publisher(2).tryReduce(1) { $0 + $1 }
        #expect((try? result.result.get()) == 3)
        #expect(throws: TestError(code: 6)) {
            try Result<Int, TestError>.Publisher(TestError(code: 6)).tryReduce(1) { $0 + $1 }.result.get()
        }
    }
}
