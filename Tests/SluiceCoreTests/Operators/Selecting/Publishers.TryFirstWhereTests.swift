import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.TryFirstWhere")
struct TryFirstWhereTests {
    @Test func publishesFirstMatch() {
        let subscriber = TestSubscriber<Int, any Error>()
        [1, 2, 3].publisher.eraseToAnyPublisher().tryFirst { $0 > 1 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(TryFirstWhere)", "value(2)", "finished"])
    }

    @Test func throwingCancelsUpstreamAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryFirst { value in
            if value == 2 { throw TestError(code: 2) }
            return false
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

    @Test func upstreamFailurePassesThrough() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: TestError(code: 1)).tryFirst { _ in true }.subscribe(subscriber)
        if case .failure(let error) = subscriber.completion {
            #expect(error as? TestError == TestError(code: 1))
        } else {
            Issue.record("expected a failure")
        }
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().tryFirst { $0 > 2 } }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.tryFirst { _ in true })
            == Publishers.TryFirstWhere<PassthroughSubject<Int, Never>>.self)
    }
}
