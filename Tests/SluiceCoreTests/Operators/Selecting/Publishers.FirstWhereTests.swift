import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.FirstWhere")
struct FirstWhereTests {
    @Test func publishesFirstMatchAndCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        var calls = 0
        upstream.first { value in
            calls += 1
            return value > 1
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(calls == 2)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(TryFirst)", "value(2)", "finished"])
    }

    /// Apple describes `first(where:)`'s subscription as "TryFirst", with the reduce-like mirror.
    @Test func descriptionMirrorAndPlayground() throws {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.first { $0 > 1 }.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "TryFirst")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
            == "TryFirst")
        #expect(Mirror(reflecting: subscription).children.map(\.label)
            == ["downstream", "result", "initial", "status"])
        #expect(upstream.subscriberDescription == "TryFirst")
    }

    @Test func noMatchAndFailure() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2].publisher.eraseToAnyPublisher().first { $0 > 5 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(TryFirst)", "finished"])
        let failing = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 1)).first { _ in true }.subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(TryFirst)", "failure(TestError(code: 1))"])
    }

    @Test func waitsForDemandAndCancel() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        [1, 2].publisher.eraseToAnyPublisher().first { $0 == 2 }.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [2])
        let upstream = ManualPublisher<Int, Never>()
        let cancelled = TestSubscriber<Int, Never>()
        upstream.first { _ in true }.subscribe(cancelled)
        cancelled.cancel()
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(cancelled.values == [])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().first { $0 > 2 } }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.first { _ in true })
            == Publishers.FirstWhere<PassthroughSubject<Int, Never>>.self)
    }
}

extension FirstWhereTests {
    @Test func fusedOnJustOptionalAndSequence() {
        #expect(type(of: Just(2).first(where: { $0 > 1 })) == Optional<Int>.Publisher.self)
        #expect(Just(2).first(where: { $0 > 1 }) == Optional(2).publisher)
        #expect(Just(0).first(where: { $0 > 1 }) == Optional<Int>.none.publisher)
        #expect(type(of: Optional(3).publisher.first(where: { $0 > 1 })) == Optional<Int>.Publisher.self)
        #expect(Optional(3).publisher.first(where: { $0 > 1 }) == Optional(3).publisher)
        #expect(Optional(1).publisher.first(where: { $0 > 1 }) == Optional<Int>.none.publisher)

        var tested: [Int] = []
        let sequence = [1, 5, 2, 7].publisher.first { value in
            tested.append(value)
            return value > 4
        }
        #expect(tested == [1, 5])
        #expect(type(of: sequence) == Optional<Int>.Publisher.self)
        #expect(sequence == Optional(5).publisher)
        #expect(type(of: Publishers.Sequence<[Int], TestError>(sequence: [1]).first(where: { _ in true }))
            == Publishers.FirstWhere<Publishers.Sequence<[Int], TestError>>.self)
    }
}
