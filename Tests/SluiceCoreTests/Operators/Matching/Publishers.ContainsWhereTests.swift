import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.ContainsWhere")
struct ContainsWhereTests {
    @Test func matchPublishesTrueAndCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        var calls = 0
        upstream.contains { value in
            calls += 1
            return value > 1
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(calls == 2)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(ContainsWhere)", "value(true)", "finished"])
    }

    @Test func noMatchAndFailure() {
        let subscriber = TestSubscriber<Bool, Never>()
        [1, 2].publisher.eraseToAnyPublisher().contains { $0 > 5 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(ContainsWhere)", "value(false)", "finished"])
        let failing = TestSubscriber<Bool, TestError>()
        Fail<Int, TestError>(error: TestError(code: 1)).contains { _ in true }.subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(ContainsWhere)", "failure(TestError(code: 1))"])
    }

    @Test func nothingBeforeDemand() {
        let subscriber = TestSubscriber<Bool, Never>(initialDemand: .none)
        [1, 2].publisher.eraseToAnyPublisher().contains { $0 == 2 }.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [true])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().contains { $0 == 2 } }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.contains { _ in true })
            == Publishers.ContainsWhere<PassthroughSubject<Int, Never>>.self)
        let sequence: Result<Bool, Never>.Publisher = [1, 2].publisher.contains { $0 > 1 }
        #expect(sequence.result == .success(true))
        #expect(Just(1).contains { $0 > 1 } == Just(false))
        #expect(Optional(2).publisher.contains { $0 > 1 } == Optional(true).publisher)
        #expect(Result<Int, TestError>.Publisher(2).contains { $0 > 1 }.result == .success(true))
    }
}
