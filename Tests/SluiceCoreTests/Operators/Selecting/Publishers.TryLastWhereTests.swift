import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryLastWhere")
struct TryLastWhereTests {
    @Test func publishesLastMatch() {
        let subscriber = TestSubscriber<Int, any Error>()
        [1, 2, 3, 4].publisher.eraseToAnyPublisher().tryLast { $0 < 3 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(TryLastWhere)", "value(2)", "finished"])
    }

    @Test func throwingCancelsUpstreamAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryLast { value in
            if value == 2 { throw TestError(code: 2) }
            return true
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [])
        #expect(subscriber.events.count == 2)
        if case .failure(let error) = subscriber.completion {
            #expect(error as? TestError == TestError(code: 2))
        } else {
            Issue.record("expected a failure")
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().tryLast { $0 < 3 } }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryLast { _ in true })
            == Publishers.TryLastWhere<PassthroughSubject<Int, Never>>.self)
    }
}
