@testable import SluiceCore
import SluiceTesting
import Testing

@Suite("AnySubscriber")
struct AnySubscriberTests {
    @Test func forwardsEveryEventToTheWrappedSubscriber() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: .max(2))
        let erased = AnySubscriber(subscriber)
        let publisher = ManualPublisher<Int, TestError>()
        publisher.subscribe(erased)
        #expect(publisher.subscription.requests == [.max(1)])
        #expect(publisher.send(5) == .max(2))
        publisher.send(completion: .failure(TestError(code: 2)))
        #expect(subscriber.eventDescriptions == ["subscription(ManualSubscription)", "value(5)", "failure(TestError(code: 2))"])
    }

    @Test func sharesTheWrappedSubscribersIdentifierAndDescription() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let erased = AnySubscriber(sink)
        #expect(erased.combineIdentifier == sink.combineIdentifier)
        #expect(String(describing: erased) == "Sink")
        #expect(erased.playgroundDescription as? String == "Sink")
    }

    @Test func wrappingAnAnySubscriberDoesNotWrapItAgain() {
        let erased = AnySubscriber(TestSubscriber<Int, Never>())
        let twice = AnySubscriber(erased)
        #expect(twice.box === erased.box)
        #expect(twice.combineIdentifier == erased.combineIdentifier)
    }

    @Test func closureBasedSubscriber() {
        var events: [String] = []
        let erased = AnySubscriber<Int, TestError>(
            receiveSubscription: { subscription in
                events.append("subscription")
                subscription.request(.max(3))
            },
            receiveValue: { value in
                events.append("value \(value)")
                return .max(1)
            },
            receiveCompletion: { events.append("\($0)") })
        let publisher = ManualPublisher<Int, TestError>()
        publisher.subscribe(erased)
        #expect(publisher.subscription.requests == [.max(3)])
        #expect(publisher.send(1) == .max(1))
        publisher.send(completion: .finished)
        #expect(events == ["subscription", "value 1", "finished"])
    }

    @Test func missingClosuresDoNothingAndReturnNoDemand() {
        let erased = AnySubscriber<Int, Never>()
        let publisher = ManualPublisher<Int, Never>()
        publisher.subscribe(erased)
        #expect(publisher.subscription.requests.isEmpty)
        #expect(publisher.send(1) == .none)
        publisher.send(completion: .finished)
        let onlyValues = AnySubscriber<Int, Never>(receiveValue: { _ in .unlimited })
        #expect(onlyValues.receive(1) == .unlimited)
    }

    @Test func closureBasedSubscribersHaveDistinctIdentifiersAndAnAnonymousDescription() {
        let a = AnySubscriber<Int, Never>()
        let b = AnySubscriber<Int, Never>()
        #expect(a.combineIdentifier != b.combineIdentifier)
        #expect(a.combineIdentifier == a.combineIdentifier)
        #expect(String(describing: a) == "Anonymous AnySubscriber")
    }

    @Test func subjectBasedSubscriberForwardsIntoTheSubject() {
        let subject = PassthroughSubject<Int, TestError>()
        let downstream = TestSubscriber<Int, TestError>()
        subject.subscribe(downstream)
        let publisher = ManualPublisher<Int, TestError>()
        publisher.subscribe(AnySubscriber(subject))
        #expect(publisher.subscription.requests == [.unlimited])
        #expect(publisher.send(1) == .none)
        #expect(publisher.send(2) == .none)
        publisher.send(completion: .failure(TestError(code: 5)))
        #expect(downstream.values == [1, 2])
        #expect(downstream.completion == .failure(TestError(code: 5)))
    }

    @Test func subjectBasedSubscriberFromAPublisherChain() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var values: [Int] = []
        let cancellable = subject.sink { values.append($0) }
        (1...3).publisher.subscribe(AnySubscriber(subject))
        #expect(values == [0, 1, 2, 3])
        #expect(subject.value == 3)
        _ = cancellable
    }

    @Test func voidReceiveConvenience() {
        var count = 0
        let erased = AnySubscriber<Void, Never>(receiveValue: { count += 1; return .max(1) })
        #expect(erased.receive() == .max(1))
        #expect(count == 1)
    }

    @Test func aSubjectIsWrappedInTheSubjectBridge() {
        // As Apple's: described as "Subject", the subject receives the bridge as its one
        // subscription (later ones are cancelled) and only the first completion.
        let subject = PassthroughSubject<Int, TestError>()
        let erased = AnySubscriber(subject)
        #expect(String(describing: erased) == "Subject")
        #expect(String(describing: erased.customMirror.subjectType).hasPrefix("SubjectSubscriber<"))
        #expect(!erased.customMirror.children.isEmpty)
        let downstream = TestSubscriber<Int, TestError>()
        subject.subscribe(downstream)
        let first = ManualPublisher<Int, TestError>.Subscription()
        let second = ManualPublisher<Int, TestError>.Subscription()
        erased.receive(subscription: first)
        erased.receive(subscription: second)
        #expect(second.cancelCount == 1)
        _ = erased.receive(1)
        erased.receive(completion: .finished)
        erased.receive(completion: .failure(TestError(code: 1)))
        #expect(downstream.values == [1])
        #expect(downstream.completion == .finished)
        #expect(erased.receive(2) == .none)
    }

    @Test func aClosureBasedSubscriberMirrorsItsDescription() {
        let mirror = Mirror(reflecting: AnySubscriber<Int, Never>())
        #expect(ObjectIdentifier(mirror.subjectType) == ObjectIdentifier(String.self))
        #expect(mirror.children.isEmpty)
    }

    @Test func mirrorReflectsTheWrappedSubscriber() {
        let subscriber = TestSubscriber<Int, Never>()
        let erased = AnySubscriber(subscriber)
        #expect(ObjectIdentifier(erased.customMirror.subjectType) == ObjectIdentifier(TestSubscriber<Int, Never>.self))
    }
}
