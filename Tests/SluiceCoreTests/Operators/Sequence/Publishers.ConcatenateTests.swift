import Dispatch
import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Concatenate")
struct ConcatenateTests {
    // MARK: Values and completions

    @Test func appendForms() {
        let values = TestSubscriber<Int, Never>()
        (1...3).publisher.eraseToAnyPublisher().append(4, 5).subscribe(values)
        #expect(values.eventDescriptions == [
            "subscription(Concatenate)", "value(1)", "value(2)", "value(3)", "value(4)", "value(5)", "finished",
        ])
        let sequence = TestSubscriber<Int, Never>()
        (1...2).publisher.eraseToAnyPublisher().append(7...8).subscribe(sequence)
        #expect(sequence.values == [1, 2, 7, 8])
        #expect(sequence.completion == .finished)
        let publisher = TestSubscriber<Int, Never>()
        Just(1).eraseToAnyPublisher().append(Just(2)).append([3].publisher).subscribe(publisher)
        #expect(publisher.values == [1, 2, 3])
        #expect(publisher.completion == .finished)
    }

    @Test func prependForms() {
        let values = TestSubscriber<Int, Never>()
        (1...2).publisher.eraseToAnyPublisher().prepend(-1, 0).subscribe(values)
        #expect(values.eventDescriptions == [
            "subscription(Concatenate)", "value(-1)", "value(0)", "value(1)", "value(2)", "finished",
        ])
        let sequence = TestSubscriber<Int, Never>()
        Just(5).eraseToAnyPublisher().prepend(stride(from: 1, to: 5, by: 2)).subscribe(sequence)
        #expect(sequence.values == [1, 3, 5])
        let publisher = TestSubscriber<Int, Never>()
        Just(5).eraseToAnyPublisher().prepend(Just(4)).subscribe(publisher)
        #expect(publisher.values == [4, 5])
        #expect(publisher.completion == .finished)
    }

    @Test func emptySidesAndFailures() {
        let empty = TestSubscriber<Int, Never>()
        Empty<Int, Never>().append(Empty()).subscribe(empty)
        #expect(empty.eventDescriptions == ["subscription(Concatenate)", "finished"])
        let suffixFails = TestSubscriber<Int, TestError>()
        Just(1).setFailureType(to: TestError.self).eraseToAnyPublisher()
            .append(Fail(error: TestError(code: 2))).subscribe(suffixFails)
        #expect(suffixFails.eventDescriptions == [
            "subscription(Concatenate)", "value(1)", "failure(TestError(code: 2))",
        ])
    }

    @Test func suffixIsSubscribedOnlyAfterThePrefixFinishes() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(1)
        #expect(suffix.subscriberCount == 0)
        prefix.send(completion: .finished)
        #expect(suffix.subscriberCount == 1)
        #expect(prefix.subscription.cancelCount == 0)
        suffix.send(2)
        suffix.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Concatenate)", "value(1)", "value(2)", "finished"])
    }

    @Test func prefixFailureEndsWithoutSubscribingTheSuffix() {
        let prefix = ManualPublisher<Int, TestError>()
        let suffix = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(1)
        prefix.send(completion: .failure(TestError(code: 9)))
        prefix.send(completion: .finished)
        #expect(suffix.subscriberCount == 0)
        #expect(subscriber.eventDescriptions == [
            "subscription(Concatenate)", "value(1)", "failure(TestError(code: 9))",
        ])
    }

    // MARK: Demand

    @Test func unusedDemandCarriesOverToTheSuffix() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(5))
        prefix.append(suffix).subscribe(subscriber)
        #expect(prefix.subscription.requests == [.max(5)])
        prefix.send(1)
        prefix.send(2)
        prefix.send(completion: .finished)
        #expect(suffix.subscription.requests == [.max(3)])
        subscriber.request(.max(2))
        #expect(suffix.subscription.requests == [.max(3), .max(2)])
        #expect(prefix.subscription.requests == [.max(5)])
    }

    @Test func demandReturnedFromReceiveCountsAndPassesThrough() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(1))
        prefix.append(suffix).subscribe(subscriber)
        #expect(prefix.send(1) == .max(1))
        #expect(prefix.send(2) == .max(1))
        prefix.send(completion: .finished)
        #expect(suffix.subscription.requests == [.max(2)])
        #expect(suffix.send(3) == .max(1))
    }

    @Test func exhaustedDemandRequestsNothingFromTheSuffix() {
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        Just(1).append(suffix).subscribe(subscriber)
        #expect(suffix.subscriberCount == 1)
        #expect(suffix.subscription.requests == [])
        subscriber.request(.max(1))
        #expect(suffix.subscription.requests == [.max(1)])
        let unlimited = ManualPublisher<Int, Never>()
        Just(1).append(unlimited).subscribe(TestSubscriber<Int, Never>())
        #expect(unlimited.subscription.requests == [.unlimited])
    }

    @Test func limitedDemandOneAtATimeAcrossTheSwitch() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.eraseToAnyPublisher().append(4, 5).subscribe(subscriber)
        for expected in 1...4 {
            #expect(subscriber.values == Array(1...expected))
            #expect(subscriber.completion == nil)
            subscriber.request(.max(1))
        }
        // The sequence suffix finishes right after its last element.
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)
    }

    // MARK: Cancellation

    @Test func cancelDuringThePrefixCancelsThePrefixOnly() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(1)
        subscriber.cancel()
        subscriber.cancel()
        #expect(prefix.subscription.cancelCount == 1)
        prefix.send(2)
        prefix.send(completion: .finished)
        #expect(suffix.subscriberCount == 0)
        #expect(subscriber.eventDescriptions == ["subscription(Concatenate)", "value(1)"])
    }

    @Test func cancelDuringTheSuffixCancelsTheSuffixOnly() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(completion: .finished)
        suffix.send(1)
        subscriber.cancel()
        #expect(suffix.subscription.cancelCount == 1)
        #expect(prefix.subscription.cancelCount == 0)
        suffix.send(2)
        suffix.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Concatenate)", "value(1)"])
    }

    // MARK: Re-entrancy

    @Test func cancelInsideTheLastPrefixValueNeverSubscribesTheSuffix() {
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, me in
            if value == 3 { me.cancel() }
            return .none
        }
        (1...3).publisher.eraseToAnyPublisher().append(suffix).subscribe(subscriber)
        #expect(suffix.subscriberCount == 0)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test func cancelInsideTheFirstSuffixValue() {
        let suffix = ManualPublisher<Int, Never>()
        suffix.subscription.onRequest = { _ in
            suffix.send(10)
            suffix.send(11)
        }
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, me in
            if value == 10 { me.cancel() }
            return .none
        }
        Just(1).append(suffix).subscribe(subscriber)
        #expect(suffix.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Concatenate)", "value(1)", "value(10)"])
    }

    @Test func requestInsideReceiveAtTheSwitch() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, me in
            me.request(.max(1))
            return .none
        }
        (1...3).publisher.eraseToAnyPublisher().append([4, 5].publisher).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == .finished)
    }

    @Test func requestInsideReceiveOfTheLastPrefixValueReachesTheSuffix() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, me in
            me.request(.max(2))
            return .none
        }
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(1)
        prefix.send(completion: .finished)
        #expect(suffix.subscription.requests == [.max(2)])
    }

    // MARK: Subjects

    @Test func passthroughSubjectSuffixIsSeenOnlyAfterThePrefixFinishes() {
        let prefix = PassthroughSubject<Int, Never>()
        let suffix = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(1)
        suffix.send(100)  // nobody subscribed to the suffix yet
        prefix.send(2)
        prefix.send(completion: .finished)
        suffix.send(3)
        prefix.send(99)
        suffix.send(4)
        suffix.send(completion: .finished)
        #expect(subscriber.eventDescriptions == [
            "subscription(Concatenate)", "value(1)", "value(2)", "value(3)", "value(4)", "finished",
        ])
    }

    @Test func sinkSendingIntoTheSuffixSubjectFromReceive() {
        let suffix = PassthroughSubject<Int, Never>()
        let received = Shared<[Int]>([])
        let cancellable = Just(1).append(suffix).sink { value in
            received.mutate { $0.append(value) }
            if value < 4 { suffix.send(value + 1) }
        }
        suffix.send(2)
        #expect(received.value == [1, 2, 3, 4])
        cancellable.cancel()
    }

    // MARK: Concurrency

    @Test func concurrentRequestsAcrossTheSwitchDeliverEveryValueInOrder() {
        for _ in 0..<50 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            let overlap = OverlapDetector()
            subscriber.onValue = { _, _ in
                overlap.enter()
                overlap.leave()
                return .none
            }
            (1...40).publisher.eraseToAnyPublisher().append(41...80).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<20 { subscriber.request(.max(1)) }
            }
            #expect(subscriber.values == Array(1...80))
            #expect(subscriber.completion == .finished)
            #expect(overlap.overlaps == 0)
        }
    }

    @Test func concurrentCancelAndRequestNeitherDeadlocksNorDeliversAfterCompletion() {
        for _ in 0..<50 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            (1...20).publisher.eraseToAnyPublisher().append(21...40).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                if index == 2 {
                    subscriber.cancel()
                } else {
                    for _ in 0..<20 { subscriber.request(.max(1)) }
                }
            }
            let values = subscriber.values
            #expect(values == Array((1..<(values.count + 1))))   // a prefix of 1...40, possibly empty
            #expect(values.count <= 40)
        }
    }

    // MARK: Memory

    @Test func releasesTheSubscriber() {
        let prefix = PassthroughSubject<Int, Never>()
        let suffix = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ prefix.append(suffix).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ Just(1).append(suffix).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ Just(1).append(suffix).subscribe($0) },
                                    end: { _ in suffix.send(completion: .finished) }))
        let failing = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ failing.append(Empty()).subscribe($0) },
                                    end: { _ in failing.send(completion: .failure(TestError())) }))
    }

    @Test func releasesTheSubscriberWhenCancelledBetweenPrefixAndSuffix() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let suffix = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subscriber.onCompletion = { _, _ in }
            subscriber.onValue = { _, me in
                me.cancel()
                return .none
            }
            Just(1).append(suffix).subscribe(subscriber)
        }
        #expect(weakSubscriber == nil)
    }

    // MARK: Descriptions, contract, types

    @Test func descriptions() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(completion: .finished)
        #expect(String(describing: subscriber.subscription!) == "Concatenate")
        #expect(prefix.subscriberDescription == "Concatenate")
        #expect(suffix.subscriberDescription == "Concatenate")
        // As in Apple's Combine: no children, and both sides share the subscription's identifier.
        #expect(Mirror(reflecting: subscriber.subscription!).children.isEmpty)
        #expect(suffix.subscriberIdentifiers == [subscriber.subscription!.combineIdentifier])
        #expect(prefix.subscriberIdentifiers == [subscriber.subscription!.combineIdentifier])
    }

    @Test func zeroDemandIsPassedOnToTheActiveSide() {
        // Apple's Combine passes `.none` on rather than trapping.
        let prefix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        prefix.append(ManualPublisher<Int, Never>()).subscribe(subscriber)
        subscriber.request(.none)
        #expect(prefix.subscription.requests == [.max(2), .none])
    }

    @Test func aPrefixValueBeyondTheDemandIsDropped() {
        // As in Apple's Combine.
        let prefix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        prefix.append(4).subscribe(subscriber)
        #expect(prefix.send(1) == .none)
        #expect(prefix.send(2) == .none)
        #expect(subscriber.values == [1])
    }

    @Test func cancelReleasesTheSuffix() {
        final class Witness: @unchecked Sendable {}
        weak var weakWitness: Witness?
        let prefix = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        do {
            let witness = Witness()
            weakWitness = witness
            prefix.append(Deferred { [witness] in _ = witness; return Just(1) }).subscribe(subscriber)
        }
        #expect(weakWitness != nil)
        subscriber.cancel()
        #expect(weakWitness == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...10).publisher.eraseToAnyPublisher().append(11...20) }
        try await PublisherContract.verify { (1...10).publisher.eraseToAnyPublisher().prepend(-3, -2, -1) }
        try await PublisherContract.verify { Empty<Int, Never>().append(Just(1)) }
        try await PublisherContract.verify {
            Fail<Int, TestError>(error: TestError()).append(Just(1).setFailureType(to: TestError.self))
        }
        try await PublisherContract.verify { () -> PublisherContract.Fixture<Publishers.Concatenate<Just<Int>, PassthroughSubject<Int, Never>>> in
            let suffix = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(Just(0).append(suffix)) {
                for value in 1...5 { suffix.send(value) }
                suffix.send(completion: .finished)
            }
        }
        try await PublisherContract.verify {
            () -> PublisherContract.Fixture<Publishers.Concatenate<PassthroughSubject<Int, Never>, Publishers.Sequence<[Int], Never>>> in
            let prefix = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(prefix.append(10, 11, 12)) {
                for value in 1...3 { prefix.send(value) }
                prefix.send(completion: .finished)
            }
        }
    }

    @Test func returnTypes() {
        let subject = PassthroughSubject<Int, Never>()
        typealias Base = PassthroughSubject<Int, Never>
        typealias Values = Publishers.Sequence<[Int], Never>
        #expect(type(of: subject.append(1, 2)) == Publishers.Concatenate<Base, Values>.self)
        #expect(type(of: subject.append(1...2)) == Publishers.Concatenate<Base, Publishers.Sequence<ClosedRange<Int>, Never>>.self)
        #expect(type(of: subject.append(Just(1))) == Publishers.Concatenate<Base, Just<Int>>.self)
        #expect(type(of: subject.prepend(1, 2)) == Publishers.Concatenate<Values, Base>.self)
        #expect(type(of: subject.prepend(1...2)) == Publishers.Concatenate<Publishers.Sequence<ClosedRange<Int>, Never>, Base>.self)
        #expect(type(of: subject.prepend(Just(1))) == Publishers.Concatenate<Just<Int>, Base>.self)
        let concatenate = subject.append(Just(1))
        #expect(concatenate.prefix === subject)
        #expect(concatenate.suffix == Just(1))
    }

    @Test func fusedOverloadsOnSequenceAndJust() {
        let values: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3, 4)
        #expect(values.sequence == [1, 2, 3, 4])
        let sequence: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3...4)
        #expect(sequence.sequence == [1, 2, 3, 4])
        let publisher: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append([3].publisher)
        #expect(publisher.sequence == [1, 2, 3])
        let prepended: Publishers.Sequence<[Int], Never> = [1, 2].publisher.prepend(-1, 0)
        #expect(prepended.sequence == [-1, 0, 1, 2])
        #expect([1, 2].publisher.prepend(3...4).sequence == [3, 4, 1, 2])
        #expect([1, 2].publisher.prepend([0].publisher).sequence == [0, 1, 2])
        let string: Publishers.Sequence<String, Never> = "ab".publisher.append("c")
        #expect(string.sequence == "abc")
        // A range is not a RangeReplaceableCollection: the general operator applies.
        #expect(type(of: (1...2).publisher.append(3))
            == Publishers.Concatenate<Publishers.Sequence<ClosedRange<Int>, Never>, Publishers.Sequence<[Int], Never>>.self)

        let just: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)
        #expect(just.sequence == [1, 2, 3])
        #expect(Just(1).append([2]).sequence == [1, 2])
        #expect(Just(3).prepend(1, 2).sequence == [1, 2, 3])
        #expect(Just(3).prepend(1...2).sequence == [1, 2, 3])
    }

    @Test func equatable() {
        typealias Pair = Publishers.Concatenate<Just<Int>, Just<Int>>
        #expect(Pair(prefix: Just(1), suffix: Just(2)) == Pair(prefix: Just(1), suffix: Just(2)))
        #expect(Pair(prefix: Just(1), suffix: Just(2)) != Pair(prefix: Just(1), suffix: Just(3)))
    }
}

@Suite("ConcatenateState")
struct ConcatenateStateTests {
    typealias Subscription = ManualPublisher<Int, Never>.Subscription

    /// Whether `subscription` is `expected`.
    func same(_ subscription: (any SluiceCore.Subscription)?, _ expected: Subscription) -> Bool {
        (subscription as? Subscription) === expected
    }

    @Test func demandRequestedBetweenPrefixAndSuffixWaitsForTheSuffix() {
        var state = ConcatenateState(downstream: "downstream")
        let prefix = Subscription()
        guard case .sendSubscription("downstream") = state.prefixSubscribed(prefix) else {
            Issue.record("the prefix's subscription must be handed downstream")
            return
        }
        let first = state.request(.max(2))
        #expect(same(first, prefix))
        let value = state.prefixValue()
        #expect(value == "downstream")
        let finished = state.prefixFinished()
        #expect(finished)
        let waiting = state.request(.max(3))
        #expect(waiting == nil)
        let suffix = Subscription()
        guard case .request(let target, let demand) = state.suffixSubscribed(suffix) else {
            Issue.record("the carried demand must be requested from the suffix")
            return
        }
        #expect(same(target, suffix))
        #expect(demand == .max(4))
        let later = state.request(.max(1))
        #expect(same(later, suffix))
    }

    @Test func secondAndLateSubscriptionsAreCancelled() {
        var state = ConcatenateState(downstream: "downstream")
        _ = state.prefixSubscribed(Subscription())
        let second = Subscription()
        guard case .cancel(let cancelled) = state.prefixSubscribed(second) else {
            Issue.record("a second prefix subscription must be cancelled")
            return
        }
        #expect(same(cancelled, second))
        let finished = state.prefixFinished()
        #expect(finished)
        _ = state.cancel()
        let late = Subscription()
        guard case .cancel(let lateCancelled) = state.suffixSubscribed(late) else {
            Issue.record("a suffix subscription arriving after cancel must be cancelled")
            return
        }
        #expect(same(lateCancelled, late))
    }

    @Test func completesOnceAndOnlyFromTheActiveSide() {
        var state = ConcatenateState(downstream: "downstream")
        let prefix = Subscription()
        _ = state.prefixSubscribed(prefix)
        let fromInactiveSide = state.complete(fromSuffix: true)
        #expect(fromInactiveSide == nil)
        let first = state.complete(fromSuffix: false)
        #expect(first == "downstream")
        let second = state.complete(fromSuffix: false)
        #expect(second == nil)
        let value = state.prefixValue()
        #expect(value == nil)
        let finished = state.prefixFinished()
        #expect(!finished)
        let forwarded = state.request(.max(1))
        #expect(forwarded == nil)
        let (subscription, released) = state.cancel()
        #expect(subscription == nil)
        #expect(released == nil)
    }

    @Test func cancelReturnsTheActiveSubscriptionAndStopsEverything() {
        var state = ConcatenateState(downstream: "downstream")
        _ = state.prefixSubscribed(Subscription())
        _ = state.prefixFinished()
        let suffix = Subscription()
        guard case .none = state.suffixSubscribed(suffix) else {
            Issue.record("no demand: nothing to request")
            return
        }
        #expect(state.suffixValue() == "downstream")
        let (subscription, released) = state.cancel()
        #expect(same(subscription, suffix))
        #expect(released == "downstream")
        #expect(state.suffixValue() == nil)
        let completion = state.complete(fromSuffix: true)
        #expect(completion == nil)
    }

    @Test func unlimitedDemandSurvivesPrefixValues() {
        var state = ConcatenateState(downstream: 0)
        _ = state.prefixSubscribed(Subscription())
        _ = state.request(.unlimited)
        _ = state.prefixValue()
        state.prefixValueDelivered(more: .max(1))
        _ = state.prefixFinished()
        guard case .request(_, let demand) = state.suffixSubscribed(Subscription()) else {
            Issue.record("unlimited demand must carry over")
            return
        }
        #expect(demand == .unlimited)
    }
}
