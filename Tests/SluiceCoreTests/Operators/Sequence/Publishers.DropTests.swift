import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Drop")
struct DropTests {
    @Test func dropsTheFirstCountAndFinishes() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...10).publisher.eraseToAnyPublisher().dropFirst(5).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == [
            "subscription(Drop)", "value(6)", "value(7)", "value(8)", "value(9)", "value(10)", "finished",
        ])
        let byDefault = TestSubscriber<Int, Never>()
        (1...3).publisher.eraseToAnyPublisher().dropFirst().subscribe(byDefault)
        #expect(byDefault.values == [2, 3])
    }

    @Test func zeroDropsNothingAndShortUpstreamPublishesNothing() {
        let all = TestSubscriber<Int, Never>()
        (1...3).publisher.eraseToAnyPublisher().dropFirst(0).subscribe(all)
        #expect(all.values == [1, 2, 3])
        let short = TestSubscriber<Int, Never>()
        (1...3).publisher.eraseToAnyPublisher().dropFirst(7).subscribe(short)
        #expect(short.eventDescriptions == ["subscription(Drop)", "finished"])
    }

    @Test func failurePassesThroughEvenWhileDropping() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.dropFirst(3).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 2)))
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Drop)", "failure(TestError(code: 2))"])
    }

    @Test func firstRequestAsksUpstreamForTheDroppedElementsToo() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.dropFirst(3).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(4)])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .none)
        #expect(upstream.send(4) == .max(2))
        subscriber.request(.max(5))
        #expect(upstream.subscription.requests == [.max(4), .max(5)])
        #expect(subscriber.values == [4])
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...6).publisher.eraseToAnyPublisher().dropFirst(3).subscribe(subscriber)
        #expect(subscriber.values == [4])
        subscriber.request(.max(1))
        #expect(subscriber.values == [4, 5])
        subscriber.request(.max(1))
        #expect(subscriber.values == [4, 5, 6])
        #expect(subscriber.completion == .finished)
    }

    @Test func unlimitedStaysUnlimited() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.dropFirst(2).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscription.requests == [.unlimited])
    }

    @Test func cancelCancelsUpstreamAndStopsEvents() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.dropFirst(1).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        subscriber.cancel()
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Drop)", "value(2)"])
    }

    @Test func reentrantCancelAndRequest() {
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { _, me in
            me.cancel()
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().dropFirst(2).subscribe(cancelling)
        #expect(cancelling.eventDescriptions == ["subscription(Drop)", "value(3)"])
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, me in
            me.request(.max(1))
            return .none
        }
        (1...5).publisher.eraseToAnyPublisher().dropFirst(2).subscribe(requesting)
        #expect(requesting.values == [3, 4, 5])
        #expect(requesting.completion == .finished)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.dropFirst(2).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.dropFirst(2).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func descriptions() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.dropFirst().subscribe(subscriber)
        #expect(upstream.subscriberDescription == "Drop")
        #expect(String(describing: subscriber.subscription!) == "Drop")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...30).publisher.eraseToAnyPublisher().dropFirst(4) }
        try await PublisherContract.verify { (1...3).publisher.eraseToAnyPublisher().dropFirst(10) }
        try await PublisherContract.verify { () -> PublisherContract.Fixture<Publishers.Drop<PassthroughSubject<Int, Never>>> in
            let subject = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(subject.dropFirst(2)) {
                for value in 1...6 { subject.send(value) }
                subject.send(completion: .finished)
            }
        }
    }

    // MARK: As in Combine: the subscription reaches the subscriber before Drop subscribes upstream

    @Test func theSubscriberGetsItsSubscriptionBeforeTheUpstreamIsSubscribed() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        upstream.dropFirst(4).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Drop)"])
        let subscription = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: subscription)
        // The demand requested so far goes upstream with the count, in one request.
        #expect(subscription.requests == [.max(14)])
        subscriber.request(.max(2))
        #expect(subscription.requests == [.max(14), .max(2)])
    }

    @Test func withoutDemandTheCountIsStillRequestedWhenTheSubscriptionArrives() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.dropFirst().subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        #expect(upstream.subscription.requests == [.max(1)])
        let nothing = ManualPublisher<Int, Never>()
        nothing.dropFirst(0).subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        #expect(nothing.subscription.requests == [])
    }

    @Test func eventsBeforeTheUpstreamSubscriptionPassThrough() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(demandPerValue: .max(42))
        upstream.dropFirst(1).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .max(42))
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Drop)", "value(2)", "finished"])
    }

    @Test func aSubscriptionArrivingAfterACancelIsIgnored() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.dropFirst(1).subscribe(subscriber)
        subscriber.cancel()
        let subscription = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: subscription)
        #expect(subscription.requests == [])
        #expect(subscription.cancelCount == 0)
    }

    @Test func aNegativeCountTrapsWhenSubscribedNotWhenCreated() async {
        _ = PassthroughSubject<Int, Never>().dropFirst(-1)  // creating it is fine
        await #expect(processExitsWith: .failure) {
            PassthroughSubject<Int, Never>().dropFirst(-1).subscribe(TestSubscriber<Int, Never>())
        }
    }

    @Test func mirrorHasNoChildren() {
        let subscriber = TestSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().dropFirst().subscribe(subscriber)
        #expect(Mirror(reflecting: subscriber.subscription!).children.isEmpty)
        #expect((subscriber.subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
            == "Drop")
    }

    @Test func typesEquatableAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Base = PassthroughSubject<Int, Never>
        #expect(type(of: subject.dropFirst()) == Publishers.Drop<Base>.self)
        #expect(subject.dropFirst().count == 1)
        let fused = subject.dropFirst(2).dropFirst(3)
        #expect(type(of: fused) == Publishers.Drop<Base>.self)
        #expect(fused.count == 5)
        let just = Just(1)
        #expect(Publishers.Drop(upstream: just, count: 2) == Publishers.Drop(upstream: just, count: 2))
        #expect(Publishers.Drop(upstream: just, count: 2) != Publishers.Drop(upstream: just, count: 3))

        let sequence: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = [1, 2, 3].publisher.dropFirst()
        #expect(Array(sequence.sequence) == [2, 3])
        #expect(Array([1, 2, 3].publisher.dropFirst(2).sequence) == [3])
        let justDropped: Optional<Int>.Publisher = Just(1).dropFirst()
        #expect(justDropped.output == nil)
        #expect(Just(1).dropFirst(0).output == 1)
        let optional: Optional<Int>.Publisher = Optional(4).publisher.dropFirst()
        #expect(optional.output == nil)
        #expect(Optional(4).publisher.dropFirst(0).output == 4)
    }
}
