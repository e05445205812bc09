import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.AllSatisfy")
struct AllSatisfyTests {
    @Test func firstFailurePublishesFalseAndCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        upstream.allSatisfy { $0 < 3 }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(5)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(AllSatisfy)", "value(false)", "finished"])
    }

    @Test func allPassPublishesTrueAtFinish() {
        let subscriber = TestSubscriber<Bool, Never>()
        [1, 2].publisher.eraseToAnyPublisher().allSatisfy { $0 < 3 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(AllSatisfy)", "value(true)", "finished"])
        let empty = TestSubscriber<Bool, Never>()
        Empty<Int, Never>().allSatisfy { _ in false }.subscribe(empty)
        #expect(empty.values == [true])
    }

    @Test func failurePassesThrough() {
        let subscriber = TestSubscriber<Bool, TestError>()
        Fail<Int, TestError>(error: TestError(code: 2)).allSatisfy { _ in true }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(AllSatisfy)", "failure(TestError(code: 2))"])
    }

    @Test func nothingBeforeDemandAndCancel() {
        let subscriber = TestSubscriber<Bool, Never>(initialDemand: .none)
        [1, 2].publisher.eraseToAnyPublisher().allSatisfy { $0 > 0 }.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [true])

        let upstream = ManualPublisher<Int, Never>()
        let cancelling = TestSubscriber<Bool, Never>()
        upstream.allSatisfy { _ in true }.subscribe(cancelling)
        #expect(upstream.subscriberDescription == "AllSatisfy")
        cancelling.cancel()
        upstream.send(completion: .finished)
        #expect(cancelling.eventDescriptions == ["subscription(AllSatisfy)"])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().allSatisfy { $0 < 3 } }
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().allSatisfy { $0 < 9 } }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.allSatisfy { _ in true })
            == Publishers.AllSatisfy<PassthroughSubject<Int, Never>>.self)
        let sequence: Result<Bool, Never>.Publisher = [1, 2].publisher.allSatisfy { $0 > 1 }
        #expect(sequence.result == .success(false))
        #expect(Just(2).allSatisfy { $0 > 1 } == Just(true))
        #expect(Optional(2).publisher.allSatisfy { $0 > 1 } == Optional(true).publisher)
        #expect(Optional<Int>.none.publisher.allSatisfy { $0 > 1 }.output == nil)
        #expect(Result<Int, TestError>.Publisher(2).allSatisfy { $0 > 1 }.result == .success(true))
    }
}
