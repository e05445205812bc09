import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.PrefixWhile")
struct PrefixWhileTests {
    @Test func republishesWhileThePredicateHoldsThenFinishes() {
        let subscriber = TestSubscriber<Int, Never>()
        (0...10).publisher.eraseToAnyPublisher().prefix { $0 < 3 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(PrefixWhile)", "value(0)", "value(1)", "value(2)", "finished",
        ])
    }

    @Test func firstNonMatchingValueCancelsUpstreamAndFinishesOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix { $0 < 2 }.subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        upstream.send(0)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(PrefixWhile)", "value(1)", "finished"])
    }

    @Test func upstreamCompletionsPassThrough() {
        let finishing = TestSubscriber<Int, Never>()
        (1...3).publisher.eraseToAnyPublisher().prefix { _ in true }.subscribe(finishing)
        #expect(finishing.eventDescriptions == [
            "subscription(PrefixWhile)", "value(1)", "value(2)", "value(3)", "finished",
        ])
        let upstream = ManualPublisher<Int, TestError>()
        let failing = TestSubscriber<Int, TestError>()
        upstream.prefix { _ in true }.subscribe(failing)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 5)))
        #expect(failing.eventDescriptions == [
            "subscription(PrefixWhile)", "value(1)", "failure(TestError(code: 5))",
        ])
        #expect(upstream.subscription.cancelCount == 0)
    }

    @Test func demandPassesThroughBothWays() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(4))
        upstream.prefix { _ in true }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(4))
        subscriber.request(.max(7))
        #expect(upstream.subscription.requests == [.max(2), .max(7)])
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().prefix { $0 < 4 }.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix { _ in true }.subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(PrefixWhile)", "value(1)"])
    }

    @Test func reentrantCancelAndRequest() {
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { _, me in
            me.cancel()
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().prefix { _ in true }.subscribe(cancelling)
        #expect(cancelling.eventDescriptions == ["subscription(PrefixWhile)", "value(1)"])
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, me in
            me.request(.max(1))
            return .none
        }
        (1...9).publisher.eraseToAnyPublisher().prefix { $0 < 4 }.subscribe(requesting)
        #expect(requesting.eventDescriptions == [
            "subscription(PrefixWhile)", "value(1)", "value(2)", "value(3)", "finished",
        ])
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.prefix { _ in true }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.prefix { _ in true }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
        let other = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ other.prefix { _ in false }.subscribe($0) }, end: { _ in other.send(1) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix { _ in true }.subscribe(subscriber)
        #expect(upstream.subscriberDescription == "PrefixWhile")
        #expect(String(describing: subscriber.subscription!) == "PrefixWhile")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.eraseToAnyPublisher().prefix { $0 < 20 } }
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().prefix { _ in true } }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.prefix { _ in true }) == Publishers.PrefixWhile<PassthroughSubject<Int, Never>>.self)
        let sequence: Publishers.Sequence<[Int], Never> = (1...10).publisher.prefix { $0 < 4 }
        #expect(sequence.sequence == [1, 2, 3])
        let just: Optional<Int>.Publisher = Just(1).prefix { $0 < 2 }
        #expect(just.output == 1)
        #expect(Just(5).prefix { $0 < 2 }.output == nil)
        let optional: Optional<Int>.Publisher = Optional(1).publisher.prefix { $0 < 2 }
        #expect(optional.output == 1)
        #expect(Optional(5).publisher.prefix { $0 < 2 }.output == nil)
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension PrefixWhileTests {
    @Test func aValueBeforeTheSubscriptionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.prefix { _ in true } }
        }
    }

    @Test func aSubscriptionAfterACancelIsCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.prefix { _ in true } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 1)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.prefix { _ in true } } == ["downstream"])
    }
}
