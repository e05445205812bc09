import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.LastWhere")
struct LastWhereTests {
    @Test func publishesLastMatchAtFinish() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2, 3, 4].publisher.eraseToAnyPublisher().last { $0 < 3 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(LastWhere)", "value(2)", "finished"])
    }

    @Test func noMatchAndFailure() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2].publisher.eraseToAnyPublisher().last { $0 > 5 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(LastWhere)", "finished"])
        let failing = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 1)).last { _ in true }.subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(LastWhere)", "failure(TestError(code: 1))"])
    }

    @Test func cancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.last { _ in true }.subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().last { $0 < 3 } }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.last { _ in true })
            == Publishers.LastWhere<PassthroughSubject<Int, Never>>.self)
    }
}
