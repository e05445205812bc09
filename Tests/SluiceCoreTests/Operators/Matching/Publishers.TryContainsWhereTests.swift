import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryContainsWhere")
struct TryContainsWhereTests {
    @Test func matchAndNoMatch() {
        let found = TestSubscriber<Bool, any Error>()
        [1, 2, 3].publisher.eraseToAnyPublisher().tryContains { $0 == 2 }.subscribe(found)
        #expect(found.eventDescriptions == ["subscription(TryContainsWhere)", "value(true)", "finished"])
        let missing = TestSubscriber<Bool, any Error>()
        [1, 3].publisher.eraseToAnyPublisher().tryContains { $0 == 2 }.subscribe(missing)
        #expect(missing.eventDescriptions == ["subscription(TryContainsWhere)", "value(false)", "finished"])
    }

    @Test func throwingCancelsUpstreamAndFailsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, any Error>(initialDemand: .none)
        upstream.tryContains { value in
            if value == 3 { throw TestError(code: 3) }
            return false
        }.subscribe(subscriber)
        subscriber.request(.max(1))
        upstream.send(3)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(TryContainsWhere)", "failure(TestError(code: 3))"])
    }

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Bool, any Error>()
        Fail<Int, TestError>(error: TestError(code: 7)).tryContains { _ in true }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(TryContainsWhere)", "failure(TestError(code: 7))"])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().tryContains { $0 == 4 } }
        try await PublisherContract.verify {
            (1...5).publisher.eraseToAnyPublisher().tryContains { _ in throw TestError() }
        }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryContains { _ in true })
            == Publishers.TryContainsWhere<PassthroughSubject<Int, Never>>.self)
        let sequence: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryContains { $0 > 1 }
        #expect((try? sequence.result.get()) == true)
        #expect(throws: TestError(code: 1)) {
            try [1].publisher.tryContains { _ in throw TestError(code: 1) }.result.get()
        }
        let just: Result<Bool, any Error>.Publisher = Just(1).tryContains { $0 > 1 }
        #expect((try? just.result.get()) == false)
        #expect((try? Result<Int, TestError>.Publisher(2).tryContains { $0 > 1 }.result.get()) == true)
    }
}
