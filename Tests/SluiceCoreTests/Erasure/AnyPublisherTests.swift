@testable import SluiceCore
import SluiceTesting
import Testing

@Suite("AnyPublisher")
struct AnyPublisherTests {
    @Test func forwardsValuesAndCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        let erased: AnyPublisher<Int, TestError> = subject.eraseToAnyPublisher()
        let subscriber = TestSubscriber<Int, TestError>()
        erased.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(1)", "value(2)", "failure(TestError(code: 3))",
        ])
    }

    @Test func demandPassesThroughUnchanged() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...4).publisher.eraseToAnyPublisher().subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completion == .finished)
    }

    @Test func theWrappedPublisherSeesTheOriginalSubscriber() {
        let publisher = ManualPublisher<Int, Never>()
        let cancellable = publisher.eraseToAnyPublisher().sink { _ in }
        #expect(publisher.subscriberDescription == "Sink")
        #expect(publisher.subscription.requests == [.unlimited])
        cancellable.cancel()
        #expect(publisher.subscription.cancelCount == 1)
    }

    @Test func erasingAnAnyPublisherDoesNotWrapItAgain() {
        let erased = Just(1).eraseToAnyPublisher()
        #expect(AnyPublisher(erased).box === erased.box)
        #expect(erased.eraseToAnyPublisher().box === erased.box)
        func eraseGenerically<P: Publisher>(_ publisher: P) -> AnyPublisher<P.Output, P.Failure> {
            publisher.eraseToAnyPublisher()
        }
        #expect(eraseGenerically(erased).box === erased.box)
        #expect(type(of: erased.box) == PublisherBox<Just<Int>>.self)
    }

    @Test func eachSubscriptionIsIndependent() {
        let erased = [1, 2].publisher.eraseToAnyPublisher()
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>(initialDemand: .max(1))
        erased.subscribe(first)
        erased.subscribe(second)
        #expect(first.values == [1, 2])
        #expect(second.values == [1])
    }

    @Test func descriptions() {
        let erased = Just(1).eraseToAnyPublisher()
        #expect(String(describing: erased) == "AnyPublisher")
        #expect(erased.playgroundDescription as? String == "AnyPublisher")
    }
}
