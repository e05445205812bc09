@testable import SluiceCore
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
        // As Apple's, the subscription is the upstream's own: IgnoreOutput wraps nothing.
        #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "finished"])

        let failing = TestSubscriber<Never, TestError>(initialDemand: .none)
        Fail<Int, TestError>(error: TestError(code: 2)).ignoreOutput().subscribe(failing)
        #expect(failing.eventDescriptions == ["subscription(Empty)", "failure(TestError(code: 2))"])
    }

    /// The downstream's demand and cancel reach the upstream unchanged; `.unlimited` is requested
    /// right after the subscription went downstream.
    @Test func demandAndCancelPassThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Never, Never>(initialDemand: .max(42))
        upstream.ignoreOutput().subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(42), .unlimited])
        #expect(upstream.subscriberDescription == "IgnoreOutput")
        #expect(subscriber.eventDescriptions == ["subscription(ManualSubscription)"])
        #expect(upstream.send(1) == .none)
        subscriber.request(.max(5))
        #expect(upstream.subscription.requests == [.max(42), .unlimited, .max(5)])
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
    }

    /// Like Apple's, it checks nothing: every subscription is passed down and asked for
    /// `.unlimited`, every completion passed through — even before a subscription.
    @Test func passesEverySubscriptionAndCompletionThrough() {
        let subscriber = TestSubscriber<Never, TestError>(initialDemand: .none)
        let inner = Publishers.IgnoreOutput<PassthroughSubject<Int, TestError>>.Inner(downstream: subscriber)
        inner.receive(completion: .finished)
        let first = ManualPublisher<Int, TestError>.Subscription()
        let second = ManualPublisher<Int, TestError>.Subscription()
        inner.receive(subscription: first)
        inner.receive(subscription: second)
        #expect(first.requests == [.unlimited])
        #expect(second.requests == [.unlimited])
        #expect(second.cancelCount == 0)
        inner.receive(completion: .failure(TestError(code: 3)))
        #expect(subscriber.eventDescriptions.first == "finished")
        #expect(subscriber.subscriptionsReceived == 2)
    }

    @Test func descriptionMirrorAndPlayground() {
        let subscriber = TestSubscriber<Never, Never>()
        let inner = Publishers.IgnoreOutput<Just<Int>>.Inner(downstream: subscriber)
        #expect(inner.description == "IgnoreOutput")
        #expect(inner.playgroundDescription as? String == "IgnoreOutput")
        #expect(Mirror(reflecting: inner).children.isEmpty)
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
