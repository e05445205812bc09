import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Output")
struct OutputTests {
    @Test func outputAtCancelsUpstreamAndFinishesOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.output(at: 1).subscribe(subscriber)
        #expect(upstream.send(10) == .max(1))
        #expect(upstream.send(11) == .none)
        upstream.send(12)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Output)", "value(11)", "finished"])
    }

    @Test func theLastValueReturnsTheSubscribersDemandAsInCombine() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(demandPerValue: .max(42))
        upstream.output(in: 1..<3).subscribe(subscriber)
        #expect(upstream.send(10) == .max(1))
        #expect(upstream.send(11) == .max(42))
        #expect(upstream.send(12) == .max(42))  // the last one: finishes, still returns the demand
        #expect(upstream.send(13) == .none)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Output)", "value(11)", "value(12)", "finished"])
    }

    @Test func beforeTheSubscriptionValuesCountAndPassButNeverEndTheStream() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(demandPerValue: .max(42))
        upstream.output(in: 1..<3).subscribe(subscriber)
        upstream.send(completion: .finished)  // ignored, as in Combine
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(42))
        #expect(upstream.send(3) == .max(42))
        #expect(upstream.send(4) == .none)
        #expect(subscriber.eventDescriptions == ["value(2)", "value(3)"])
        let subscription = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: subscription)
        #expect(upstream.send(5) == .none)
        #expect(subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["value(2)", "value(3)", "subscription(Output)", "finished"])
    }

    @Test func aSubscriptionArrivingAfterACancelIsIgnored() throws {
        let upstream = LatePublisher<Int, Never>()
        upstream.output(in: 0..<3).subscribe(TestSubscriber<Int, Never>())
        let operatorSubscription = try #require(upstream.subscriber as? any Subscription)
        operatorSubscription.cancel()
        let subscription = ManualPublisher<Int, Never>.Subscription()
        upstream.send(subscription: subscription)
        #expect(subscription.requests == [])
        #expect(subscription.cancelCount == 0)
    }

    @Test func mirrorHasNoChildren() {
        let subscriber = TestSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().output(at: 3).subscribe(subscriber)
        #expect(Mirror(reflecting: subscriber.subscription!).children.isEmpty)
    }

    @Test func outputInRange() {
        let subscriber = TestSubscriber<Int, Never>()
        (0..<10).publisher.eraseToAnyPublisher().output(in: 2...4).subscribe(subscriber)
        #expect(subscriber.values == [2, 3, 4])
        #expect(subscriber.completion == .finished)
        let open = TestSubscriber<Int, Never>()
        (0..<5).publisher.eraseToAnyPublisher().output(in: 3...).subscribe(open)
        #expect(open.values == [3, 4])
        #expect(open.completion == .finished)
    }

    @Test func upstreamEndsBeforeRangeAndFailure() {
        let subscriber = TestSubscriber<Int, Never>()
        [1].publisher.eraseToAnyPublisher().output(at: 3).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Output)", "finished"])
        let upstream = ManualPublisher<Int, TestError>()
        let failing = TestSubscriber<Int, TestError>()
        upstream.output(in: 0..<5).subscribe(failing)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(failing.eventDescriptions == ["subscription(Output)", "value(1)", "failure(TestError(code: 1))"])
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (0..<10).publisher.eraseToAnyPublisher().output(in: 2..<5).subscribe(subscriber)
        #expect(subscriber.values == [2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 3])
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 3, 4])
        #expect(subscriber.completion == .finished)
    }

    @Test func returnedDemandPassesThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.output(in: 0..<5).subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.send(0) == .max(2))
    }

    @Test func cancelStopsEverything() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.output(in: 0..<5).subscribe(subscriber)
        upstream.send(0)
        subscriber.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Output)", "value(0)"])
    }

    @Test func reentrantCancelAndRequest() {
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { _, me in
            me.cancel()
            return .none
        }
        (0..<5).publisher.eraseToAnyPublisher().output(in: 1..<3).subscribe(cancelling)
        #expect(cancelling.eventDescriptions == ["subscription(Output)", "value(1)"])
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, me in
            me.request(.max(1))
            return .none
        }
        (0..<5).publisher.eraseToAnyPublisher().output(in: 1..<3).subscribe(requesting)
        #expect(requesting.values == [1, 2])
        #expect(requesting.completion == .finished)
    }

    @Test func releasesSubscriber() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.output(at: 0).subscribe(subscriber)
            upstream.send(0)
        }
        upstream.detachAll()
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (0..<10).publisher.eraseToAnyPublisher().output(in: 2..<5) }
        try await PublisherContract.verify { (0..<10).publisher.eraseToAnyPublisher().output(at: 3) }
    }

    @Test func typesAndRange() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.output(at: 1)) == Publishers.Output<PassthroughSubject<Int, Never>>.self)
        #expect(subject.output(at: 2).range == 2..<3)
        #expect(subject.output(in: ..<4).range == 0..<4)
    }

    @Test func prefixRepublishesUpToMaxLengthThenCancelsAndFinishes() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix(2).subscribe(subscriber)
        #expect(upstream.send(0) == .none)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Output)", "value(0)", "value(1)", "finished"])
        let short = TestSubscriber<Int, Never>()
        (0..<3).publisher.eraseToAnyPublisher().prefix(10).subscribe(short)
        #expect(short.values == [0, 1, 2])
        #expect(short.completion == .finished)
    }

    @Test func prefixLimitedDemandAndContract() async throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (0...10).publisher.eraseToAnyPublisher().prefix(2).subscribe(subscriber)
        #expect(subscriber.values == [0])
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 1])
        #expect(subscriber.completion == .finished)
        try await PublisherContract.verify { (0..<10).publisher.eraseToAnyPublisher().prefix(4) }
    }

    @Test func prefixTypesAndFusedOverloads() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.prefix(2)) == Publishers.Output<PassthroughSubject<Int, Never>>.self)
        #expect(subject.prefix(2).range == 0..<2)
        let sequence: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)
        #expect(Array(sequence.sequence) == [1, 2])
        let just: Optional<Int>.Publisher = Just(1).prefix(1)
        #expect(just.output == 1)
        #expect(Just(1).prefix(0).output == nil)
        let optional: Optional<Int>.Publisher = Optional(1).publisher.prefix(3)
        #expect(optional.output == 1)
        #expect(Optional(1).publisher.prefix(0).output == nil)
    }
}

extension OutputTests {
    @Test func fusedOnJustAndOptional() {
        #expect(type(of: Just(1).output(at: 0)) == Optional<Int>.Publisher.self)
        #expect(Just(1).output(at: 0) == Optional(1).publisher)
        #expect(Just(1).output(at: 1) == Optional<Int>.none.publisher)
        #expect(type(of: Just(1).output(in: 0...2)) == Optional<Int>.Publisher.self)
        #expect(Just(1).output(in: 0...2) == Optional(1).publisher)
        #expect(Just(1).output(in: 1...) == Optional<Int>.none.publisher)
        #expect(Just(1).output(in: ..<1) == Optional(1).publisher)
        // As Apple's: the output is kept iff the range starts at 0, even `0..<0`; no trap.
        #expect(Just(1).output(in: 0..<0) == Optional(1).publisher)
        #expect(Just(1).output(in: -10..<10) == Optional<Int>.none.publisher)
        #expect(Just(1).output(in: (-10)...) == Optional<Int>.none.publisher)
        #expect(Just(1).output(in: 0..<Int.max) == Optional(1).publisher)
        #expect(Optional(2).publisher.output(at: 0) == Optional(2).publisher)
        #expect(Optional(2).publisher.output(at: 3) == Optional<Int>.none.publisher)
        #expect(Optional(2).publisher.output(in: 0..<1) == Optional(2).publisher)
        #expect(Optional<Int>.none.publisher.output(in: 0..<1) == Optional<Int>.none.publisher)
        #expect(Optional(2).publisher.output(in: 0..<(Int.max - 2)) == Optional(2).publisher)
    }

    @Test func optionalOutputInRangeTrapsOnAnUpperBoundFromIntMaxMinusOne() async {
        await #expect(processExitsWith: .failure) {
            _ = Optional(2).publisher.output(in: 0..<(Int.max - 1))
        }
    }

    @Test func fusedOnCollectionSequences() {
        let array = [10, 11, 12, 13].publisher
        #expect(type(of: array.output(at: 2)) == Optional<Int>.Publisher.self)
        #expect(array.output(at: 2) == Optional(12).publisher)
        #expect(array.output(at: 4) == Optional<Int>.none.publisher)
        #expect(type(of: array.output(in: 1..<3)) == Publishers.Sequence<[Int], Never>.self)
        #expect(array.output(in: 1..<3).sequence == [11, 12])
        #expect(array.output(in: 2..<4).sequence == [12, 13])
        let failing = Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
        #expect(type(of: failing.output(in: 0..<2)) == Publishers.Sequence<[Int], TestError>.self)
        #expect(type(of: failing.output(at: 0)) == Publishers.Output<Publishers.Sequence<[Int], TestError>>.self)

        // A non-random-access collection indexes with its own index type.
        let text = "abc"
        let characters = text.publisher
        let second = text.index(after: text.startIndex)
        #expect(characters.output(at: second) == Optional<Character>("b").publisher)
        #expect(characters.output(at: text.endIndex) == Optional<Character>.none.publisher)
        #expect(characters.output(in: second..<text.endIndex).sequence == ["b", "c"])
    }

    @Test func fusedOnCollectionsGoThroughIndicesAndAnUnclampedSlice() async {
        // As Apple's: output(at:) asks `indices`; output(in:) slices the range as given, so a
        // range past the end stops the program.
        let array = [10, 11, 12, 13].publisher
        #expect(array.output(at: -1) == Optional<Int>.none.publisher)
        await #expect(processExitsWith: .failure) {
            _ = [10, 11].publisher.output(in: 1..<9)
        }
    }

    @Test func equatable() {
        let sequence = Publishers.Sequence<[Int], TestError>(sequence: [1, 2])
        #expect(Publishers.Output(upstream: sequence, range: 0..<1) == Publishers.Output(upstream: sequence, range: 0..<1))
        #expect(Publishers.Output(upstream: sequence, range: 0..<1) != Publishers.Output(upstream: sequence, range: 0..<2))
    }
}
