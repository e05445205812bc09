import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryAllSatisfy")
struct TryAllSatisfyTests {
    @Test func allPassAndFirstFailure() {
        let passing = TestSubscriber<Bool, any Error>()
        [1, 2].publisher.eraseToAnyPublisher().tryAllSatisfy { $0 < 3 }.subscribe(passing)
        #expect(passing.eventDescriptions == ["subscription(TryAllSatisfy)", "value(true)", "finished"])
        let upstream = ManualPublisher<Int, Never>()
        let failing = TestSubscriber<Bool, any Error>()
        upstream.tryAllSatisfy { $0 < 3 }.subscribe(failing)
        upstream.send(4)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(failing.eventDescriptions == ["subscription(TryAllSatisfy)", "value(false)", "finished"])
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, any Error>()
        upstream.tryAllSatisfy { _ in throw TestError(code: 5) }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(TryAllSatisfy)", "failure(TestError(code: 5))"])
    }

    @Test func upstreamFailureAndDemand() {
        let failing = TestSubscriber<Bool, any Error>()
        Fail<Int, TestError>(error: TestError(code: 2)).tryAllSatisfy { _ in true }.subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(TryAllSatisfy)", "failure(TestError(code: 2))"])
        let waiting = TestSubscriber<Bool, any Error>(initialDemand: .none)
        [1].publisher.eraseToAnyPublisher().tryAllSatisfy { _ in true }.subscribe(waiting)
        #expect(waiting.values == [])
        waiting.request(.max(1))
        #expect(waiting.values == [true])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().tryAllSatisfy { $0 < 9 } }
        try await PublisherContract.verify {
            (1...5).publisher.eraseToAnyPublisher().tryAllSatisfy { _ in throw TestError() }
        }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryAllSatisfy { _ in true })
            == Publishers.TryAllSatisfy<PassthroughSubject<Int, Never>>.self)
        let sequence: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryAllSatisfy { $0 > 0 }
        #expect((try? sequence.result.get()) == true)
        let just: Result<Bool, any Error>.Publisher = Just(1).tryAllSatisfy { $0 > 1 }
        #expect((try? just.result.get()) == false)
        #expect(throws: TestError(code: 9)) {
            try Result<Int, TestError>.Publisher(1).tryAllSatisfy { _ in throw TestError(code: 9) }.result.get()
        }
    }
}
