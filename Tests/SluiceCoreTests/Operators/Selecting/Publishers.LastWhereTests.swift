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

extension LastWhereTests {
    @Test func fusedOnJustOptionalAndSequence() {
        #expect(type(of: Just(2).last(where: { $0 > 1 })) == Optional<Int>.Publisher.self)
        #expect(Just(2).last(where: { $0 > 1 }) == Optional(2).publisher)
        #expect(Just(0).last(where: { $0 > 1 }) == Optional<Int>.none.publisher)
        #expect(Optional(3).publisher.last(where: { $0 > 1 }) == Optional(3).publisher)
        #expect(Optional<Int>.none.publisher.last(where: { $0 > 1 }) == Optional<Int>.none.publisher)

        var tested: [Int] = []
        let sequence = [1, 5, 2, 7, 3].publisher.last { value in
            tested.append(value)
            return value > 4
        }
        #expect(tested == [3, 7])
        #expect(type(of: sequence) == Optional<Int>.Publisher.self)
        #expect(sequence == Optional(7).publisher)
        #expect(type(of: stride(from: 0, to: 3, by: 1).publisher.last(where: { _ in true }))
            == Publishers.LastWhere<Publishers.Sequence<StrideTo<Int>, Never>>.self)
    }
}
