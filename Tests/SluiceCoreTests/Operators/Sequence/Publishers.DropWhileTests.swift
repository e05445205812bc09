import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.DropWhile")
struct DropWhileTests {
    @Test func dropsUntilThePredicateFailsThenRepublishesEverything() {
        let subscriber = TestSubscriber<Int, Never>()
        [-62, -1, 0, 10, 0, 22, 41, -1, 5].publisher.eraseToAnyPublisher().drop { $0 <= 0 }.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(DropWhile)", "value(10)", "value(0)", "value(22)", "value(41)", "value(-1)",
            "value(5)", "finished",
        ])
    }

    @Test func predicateIsNotCalledAfterItReturnsFalse() {
        let calls = Shared(0)
        let subscriber = TestSubscriber<Int, Never>()
        (1...10).publisher.eraseToAnyPublisher().drop { value in
            calls.mutate { $0 += 1 }
            return value < 3
        }.subscribe(subscriber)
        #expect(calls.value == 3)
        #expect(subscriber.values == Array(3...10))
    }

    @Test func failurePassesThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.drop { $0 < 2 }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.eventDescriptions == [
            "subscription(DropWhile)", "value(2)", "failure(TestError(code: 4))",
        ])
    }

    @Test func droppedValuesAreReplacedAndDemandPassesThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(3))
        upstream.drop { $0 < 2 }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.send(0) == .max(1))
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(3))
        #expect(upstream.send(0) == .max(3))
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...6).publisher.eraseToAnyPublisher().drop { $0 < 4 }.subscribe(subscriber)
        #expect(subscriber.values == [4])
        subscriber.request(.max(1))
        #expect(subscriber.values == [4, 5])
        subscriber.request(.max(2))
        #expect(subscriber.values == [4, 5, 6])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.drop { $0 < 1 }.subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(DropWhile)", "value(1)"])
    }

    @Test func reentrantCancelAndRequest() {
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { _, me in
            me.cancel()
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().drop { $0 < 3 }.subscribe(cancelling)
        #expect(cancelling.eventDescriptions == ["subscription(DropWhile)", "value(3)"])
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, me in
            me.request(.max(1))
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().drop { $0 < 3 }.subscribe(requesting)
        #expect(requesting.values == [3, 4, 5])
        #expect(requesting.completion == .finished)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.drop { _ in true }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.drop { _ in true }.subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.drop { _ in true }.subscribe(subscriber)
        #expect(upstream.subscriberDescription == "DropWhile")
        #expect(String(describing: subscriber.subscription!) == "DropWhile")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.eraseToAnyPublisher().drop { $0 < 10 } }
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().drop { _ in true } }
    }

    @Test func typesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.drop { _ in true }) == Publishers.DropWhile<PassthroughSubject<Int, Never>>.self)
        let sequence: Publishers.Sequence<DropWhileSequence<[Int]>, Never> = [1, 2, 3, 1].publisher.drop { $0 < 2 }
        #expect(Array(sequence.sequence) == [2, 3, 1])
        let just: Optional<Int>.Publisher = Just(1).drop { $0 < 2 }
        #expect(just.output == nil)
        #expect(Just(5).drop { $0 < 2 }.output == 5)
        let optional: Optional<Int>.Publisher = Optional(1).publisher.drop { $0 < 2 }
        #expect(optional.output == nil)
        #expect(Optional(5).publisher.drop { $0 < 2 }.output == 5)
        #expect(Optional<Int>.none.publisher.drop { _ in false }.output == nil)
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension DropWhileTests {
    @Test func eventsBeforeTheSubscriptionAreIgnored() {
        let outcome = eventsBeforeTheSubscription(sending: 1) { upstream in upstream.drop { _ in false } }
        #expect(outcome.demand == .none)
        #expect(outcome.events == [])
    }

    @Test func aSubscriptionAfterACancelIsNeitherRequestedFromNorCancelled() {
        let outcome = lateSubscriptionAfterCancel { (upstream: LatePublisher<Int, Never>) in upstream.drop { _ in false } }
        #expect(outcome.requests == [])
        #expect(outcome.cancels == 0)
    }

    @Test func mirror() {
        #expect(subscriptionMirrorLabels { upstream in upstream.drop { _ in false } } == [])
    }
}
