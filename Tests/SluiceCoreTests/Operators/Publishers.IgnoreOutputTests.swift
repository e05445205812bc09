import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.IgnoreOutput")
struct IgnoreOutputTests {
    @Test func dropsValuesAndPassesBothCompletions() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Never, TestError>()
        subject.ignoreOutput().subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(IgnoreOutput)", "finished"])

        let failing = TestSubscriber<Never, TestError>(initialDemand: .none)
        Fail<Int, TestError>(error: TestError(code: 2)).ignoreOutput().subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(IgnoreOutput)", "failure(TestError(code: 2))"])
    }

    @Test func cancelCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Never, Never>()
        upstream.ignoreOutput().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.unlimited])
        #expect(upstream.subscriberDescription == "IgnoreOutput")
        subscriber.cancel()
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.completion == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().ignoreOutput() }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.ignoreOutput()) == Publishers.IgnoreOutput<PassthroughSubject<Int, Never>>.self)
        #expect(type(of: [1].publisher.ignoreOutput()) == Empty<Int, Never>.self)
        #expect(type(of: Just(1).ignoreOutput()) == Empty<Int, Never>.self)
        #expect(type(of: Optional(1).publisher.ignoreOutput()) == Empty<Int, Never>.self)
        #expect(type(of: Result<Int, TestError>.success(1).publisher.ignoreOutput()) == Empty<Int, TestError>.self)
        let subscriber = TestSubscriber<Int, Never>()
        Just(1).ignoreOutput().subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "finished"])
    }
}
