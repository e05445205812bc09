import SluiceCore
import SluiceTesting
import Testing

@Suite("Publisher")
struct PublisherTests {
    @Test func subscribeCallsReceiveSubscriber() {
        let publisher = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        publisher.subscribe(subscriber)
        #expect(publisher.subscriberCount == 1)
        #expect(publisher.subscriberDescription == "TestSubscriber")
        #expect(subscriber.subscriptionsReceived == 1)
    }

    // MARK: subscribe(_ subject:)

    @Test func subscribeSubjectBridgesValuesAndCompletion() {
        let upstream = PassthroughSubject<Int, TestError>()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        let cancellable = upstream.subscribe(subject)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError(code: 6)))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .failure(TestError(code: 6)))
        _ = cancellable
    }

    @Test func subscribeSubjectRequestsUnlimitedFromUpstreamOnceTheSubjectHasDemand() {
        // As Apple's: a PassthroughSubject asks its upstream for `.unlimited` once one of its
        // subscribers has requested demand; a CurrentValueSubject at once.
        let upstream = ManualPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = upstream.subscribe(subject)
        #expect(upstream.subscription.requests == [])
        subject.subscribe(TestSubscriber<Int, Never>(initialDemand: .max(1)))
        #expect(upstream.subscription.requests == [.unlimited])
        let other = ManualPublisher<Int, Never>()
        let current = other.subscribe(CurrentValueSubject<Int, Never>(0))
        #expect(other.subscription.requests == [.unlimited])
        _ = (cancellable, current)
    }

    @Test func subscribeSubjectFromASequence() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        let cancellable = [1, 2, 3].publisher.subscribe(subject)
        #expect(subscriber.values == [0, 1, 2, 3])
        #expect(subscriber.completion == .finished)
        #expect(subject.value == 3)
        _ = cancellable
    }

    @Test func theCancellableCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        let cancellable = upstream.subscribe(subject)
        upstream.send(1)
        cancellable.cancel()
        cancellable.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        // A late value from a misbehaving upstream is not forwarded after the cancel.
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func releasingTheCancellableCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        var cancellable: AnyCancellable? = upstream.subscribe(subject)
        #expect(upstream.subscription.cancelCount == 0)
        cancellable = nil
        #expect(upstream.subscription.cancelCount == 1)
        _ = cancellable
    }

    @Test func subscribingToACompletedSubjectCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        subject.send(completion: .finished)
        let cancellable = upstream.subscribe(subject)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(upstream.subscription.requests.isEmpty)
        _ = cancellable
    }

    @Test func severalUpstreamsFeedOneSubjectUntilTheFirstCompletes() {
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        let cancellables = [first.subscribe(subject), second.subscribe(subject)]
        first.send(1)
        second.send(2)
        first.send(completion: .finished)
        second.send(3)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
        _ = cancellables
    }

    @Test func theBridgeReleasesTheSubjectOnCompletionAndCancel() {
        let upstream = PassthroughSubject<Int, Never>()
        weak var weakSubject: PassthroughSubject<Int, Never>?
        var cancellable: AnyCancellable?
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            cancellable = upstream.subscribe(subject)
        }
        #expect(weakSubject != nil)
        upstream.send(completion: .finished)
        #expect(weakSubject == nil)

        let other = PassthroughSubject<Int, Never>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            cancellable = other.subscribe(subject)
        }
        #expect(weakSubject != nil)
        cancellable?.cancel()
        #expect(weakSubject == nil)
    }
}
