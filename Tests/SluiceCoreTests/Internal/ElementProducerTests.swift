@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

/// A step for testing the engine, deciding by value: negatives are dropped, `failAt` fails,
/// `finishAt` finishes without sending, `lastAt` is sent and then finishes; an empty finish
/// becomes `-1` when `replaceEmpty` is set, and a failure becomes `-2` when `replaceFailure` is.
private struct Decider: ElementStep {
    typealias Input = Int
    typealias UpstreamFailure = TestError
    typealias Output = Int
    typealias Failure = TestError
    var failAt: Int?
    var finishAt: Int?
    var lastAt: Int?
    var replaceEmpty = false
    var replaceFailure = false
    var seen = 0

    mutating func receive(_ input: Int) -> ElementDecision<Int, TestError> {
        seen += 1
        if input < 0 { return .drop }
        if input == failAt { return .fail(TestError(code: input)) }
        if input == finishAt { return .finish }
        if input == lastAt { return .sendAndFinish(input) }
        return .send(input)
    }

    func receive(completion: Subscribers.Completion<TestError>) -> ElementEnding<Int, TestError> {
        switch completion {
        case .finished where replaceEmpty && seen == 0: return .sendAndFinish(-1)
        case .failure where replaceFailure: return .sendAndFinish(-2)
        default: return .complete(completion)
        }
    }
}

private func attach(_ step: Decider, demand: Subscribers.Demand = .unlimited, perValue: Subscribers.Demand = .none)
    -> (ManualPublisher<Int, TestError>, TestSubscriber<Int, TestError>) {
    let upstream = ManualPublisher<Int, TestError>()
    let subscriber = TestSubscriber<Int, TestError>(initialDemand: demand, demandPerValue: perValue)
    upstream.subscribe(ElementProducer(step: step, downstream: subscriber, name: "Decider"))
    return (upstream, subscriber)
}

@Suite("ElementProducer")
struct ElementProducerTests {
    @Test func sendsValuesAndForwardsDemandBothWays() {
        let (upstream, subscriber) = attach(Decider(), demand: .max(2), perValue: .max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Decider)"])
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(1) == .max(1))
        subscriber.request(.max(3))
        #expect(upstream.subscription.requests == [.max(2), .max(3)])
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(1)", "finished"])
    }

    @Test func dropAsksForOneMore() {
        let (upstream, subscriber) = attach(Decider(), demand: .max(1))
        #expect(upstream.send(-1) == .max(1))
        #expect(upstream.send(-5) == .max(1))
        #expect(upstream.send(3) == .none)
        #expect(subscriber.values == [3])
    }

    @Test func failCancelsUpstreamAndFailsOnce() {
        let (upstream, subscriber) = attach(Decider(failAt: 2))
        upstream.send(1)
        #expect(upstream.send(2) == .none)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(1)", "failure(TestError(code: 2))"])
    }

    @Test func finishCancelsUpstreamAndFinishesOnce() {
        let (upstream, subscriber) = attach(Decider(finishAt: 2))
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(1)", "finished"])
    }

    @Test func sendAndFinishSendsTheValueThenFinishes() {
        let (upstream, subscriber) = attach(Decider(lastAt: 2))
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(1)", "value(2)", "finished"])
    }

    @Test func upstreamCompletionPassesThrough() {
        let (upstream, subscriber) = attach(Decider())
        upstream.send(completion: .failure(TestError(code: 7)))
        upstream.send(completion: .finished)
        upstream.send(1)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "failure(TestError(code: 7))"])
        #expect(upstream.subscription.cancelCount == 0)
    }

    @Test func aLastValueAtCompletionWaitsForDemand() {
        let (upstream, subscriber) = attach(Decider(replaceEmpty: true), demand: .none)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(-1)", "finished"])
        #expect(upstream.subscription.requests == [])  // the upstream had already completed
    }

    @Test func aLastValueAtCompletionGoesAtOnceWithDemand() {
        let (upstream, subscriber) = attach(Decider(replaceEmpty: true), demand: .max(1))
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(-1)", "finished"])
    }

    @Test func usedUpDemandHoldsTheLastValue() {
        // Two requested, two delivered: the replacement for the failure must wait.
        let (upstream, subscriber) = attach(Decider(replaceFailure: true), demand: .max(2))
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, -2])
        #expect(subscriber.completion == .finished)
    }

    @Test func demandReturnedFromReceiveCountsForTheLastValue() {
        let (upstream, subscriber) = attach(Decider(replaceFailure: true), demand: .max(1), perValue: .max(1))
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.values == [1, -2])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelWhileTheLastValueWaitsSendsNothing() {
        let (upstream, subscriber) = attach(Decider(replaceEmpty: true), demand: .none)
        upstream.send(completion: .finished)
        subscriber.cancel()
        #expect(subscriber.eventDescriptions == ["subscription(Decider)"])
        #expect(upstream.subscription.cancelCount == 0)  // it had completed: nothing to cancel
    }

    @Test func cancelInsideTheLastValueSkipsTheCompletion() {
        let (upstream, subscriber) = attach(Decider(replaceEmpty: true))
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(-1)"])
    }

    @Test func cancelIsIdempotentAndStopsEverything() {
        let (upstream, subscriber) = attach(Decider())
        upstream.send(1)
        subscriber.cancel()
        subscriber.cancel()
        let producer = subscriber.subscription
        producer?.cancel()
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Decider)", "value(1)"])
    }

    @Test func reentrantRequestAndCancelFromReceive() {
        let (upstream, subscriber) = attach(Decider(), demand: .max(1))
        subscriber.onValue = { value, subscriber in
            if value == 1 { subscriber.request(.max(1)) }
            if value == 2 { subscriber.cancel() }
            return .none
        }
        upstream.subscription.onRequest = { _ in }
        upstream.send(1)
        #expect(upstream.subscription.requests == [.max(1), .max(1)])
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(3)
        #expect(subscriber.values == [1, 2])
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let (upstream, _) = attach(Decider())
        let producer = ElementProducer(step: Decider(), downstream: TestSubscriber<Int, TestError>(), name: "D")
        producer.receive(subscription: upstream.subscription)
        let second = ManualPublisher<Int, TestError>.Subscription()
        producer.receive(subscription: second)
        #expect(second.cancelCount == 1)
        #expect(upstream.subscription.cancelCount == 0)
    }

    @Test func releasesTheDownstreamOnCancelCompletionAndEarlyEnd() {
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        for (index, step) in [Decider(), Decider(), Decider(failAt: 1)].enumerated() {
            let upstream = ManualPublisher<Int, TestError>()
            do {
                let subscriber = TestSubscriber<Int, TestError>()
                weakSubscriber = subscriber
                upstream.subscribe(ElementProducer(step: step, downstream: subscriber, name: "D"))
                switch index {
                case 0: subscriber.cancel()
                case 1: upstream.send(completion: .finished)
                default: upstream.send(1)
                }
            }
            #expect(weakSubscriber == nil, "case \(index)")
        }
    }

    @Test func concurrentRequestsAndCancel() async {
        for _ in 0..<50 {
            let (upstream, subscriber) = attach(Decider(), demand: .none)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { subscriber.request(.max(1)) } }
                group.addTask { subscriber.cancel() }
            }
            #expect(upstream.subscription.cancelCount == 1)
            #expect(upstream.subscription.requests.count <= 4)
        }
    }

    @Test func description() {
        let (_, subscriber) = attach(Decider())
        let producer = subscriber.subscription!
        #expect(String(describing: producer) == "Decider")
        #expect((producer as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Decider")
        #expect(Mirror(reflecting: producer).children.map(\.label) == ["downstream"])
    }

    @Test func mirrorChildrenComeFromTheStep() {
        let subscriber = TestSubscriber<Int, TestError>()
        let producer = ElementProducer(step: PolicyStep<Traps>(), downstream: subscriber, name: "Policy")
        let mirror = Mirror(reflecting: producer)
        #expect(mirror.children.map(\.label) == ["seen", "subscribed"])
        #expect(mirror.children.map { String(describing: $0.value) } == ["0", "false"])
        ManualPublisher<Int, TestError>().subscribe(producer)
        #expect(Mirror(reflecting: producer).children.map { String(describing: $0.value) } == ["0", "true"])
    }

    // MARK: A misbehaving upstream (events before the subscription, a subscription after a cancel)

    @Test func ignoreDropsEventsBeforeTheSubscription() {
        let subscriber = TestSubscriber<Int, TestError>(demandPerValue: .max(3))
        let producer = ElementProducer(step: PolicyStep<Ignores>(), downstream: subscriber, name: "Policy")
        #expect(producer.receive(1) == .none)
        producer.receive(completion: .finished)
        #expect(subscriber.eventDescriptions == [])
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(producer)
        #expect(upstream.send(2) == .max(3))
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Policy)", "value(20)", "finished"])
    }

    @Test func forwardValuesPublishesValuesButNotACompletionBeforeTheSubscription() {
        let subscriber = TestSubscriber<Int, TestError>(demandPerValue: .max(3))
        let producer = ElementProducer(step: PolicyStep<ForwardsValues>(), downstream: subscriber, name: "Policy")
        #expect(producer.receive(1) == .max(3))
        #expect(producer.receive(-1) == .max(1))
        producer.receive(completion: .finished)
        #expect(subscriber.eventDescriptions == ["value(10)"])
    }

    @Test func forwardAllPublishesValuesAndACompletionBeforeTheSubscription() {
        let subscriber = TestSubscriber<Int, TestError>(demandPerValue: .max(3))
        let producer = ElementProducer(step: PolicyStep<ForwardsAll>(), downstream: subscriber, name: "Policy")
        #expect(producer.receive(1) == .max(3))
        producer.receive(completion: .failure(TestError(code: 4)))
        #expect(subscriber.eventDescriptions == ["value(10)", "failure(TestError(code: 4))"])
        let late = ManualPublisher<Int, TestError>()
        late.subscribe(producer)
        #expect(late.subscription.cancelCount == 1)  // ended: a late subscription is refused
    }

    @Test(arguments: [false, true])
    func aSubscriptionAfterACancelIsCancelledOnlyWhenTrapping(trapping: Bool) {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        if trapping {
            let producer = ElementProducer(step: PolicyStep<Traps>(), downstream: subscriber, name: "Policy")
            producer.cancel()
            upstream.subscribe(producer)
        } else {
            let producer = ElementProducer(step: PolicyStep<Ignores>(), downstream: subscriber, name: "Policy")
            producer.cancel()
            upstream.subscribe(producer)
        }
        #expect(upstream.subscription.cancelCount == (trapping ? 1 : 0))
        #expect(upstream.subscription.requests == [])
        #expect(subscriber.eventDescriptions == [])
    }

    @Test func trapStopsTheProgramOnAValueBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let producer = ElementProducer(step: PolicyStep<Traps>(), downstream: TestSubscriber<Int, TestError>(),
                                           name: "Policy")
            _ = producer.receive(1)
        }
    }

    @Test func trapStopsTheProgramOnACompletionBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let producer = ElementProducer(step: PolicyStep<Traps>(), downstream: TestSubscriber<Int, TestError>(),
                                           name: "Policy")
            producer.receive(completion: .finished)
        }
    }

    @Test func trapStopsTheProgramOnARequestBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let producer = ElementProducer(step: PolicyStep<Traps>(), downstream: TestSubscriber<Int, TestError>(),
                                           name: "Policy")
            producer.request(.max(1))
        }
    }
}

private protocol EarlyPolicy { static var handling: EarlyEventHandling { get } }
private enum Ignores: EarlyPolicy { static var handling: EarlyEventHandling { .ignore } }
private enum ForwardsValues: EarlyPolicy { static var handling: EarlyEventHandling { .forwardValues } }
private enum ForwardsAll: EarlyPolicy { static var handling: EarlyEventHandling { .forwardAll } }
private enum Traps: EarlyPolicy { static var handling: EarlyEventHandling { .trap } }

/// Multiplies by ten, drops negatives; handles early events as `Policy` says; mirrors its count.
private struct PolicyStep<Policy: EarlyPolicy>: ElementStep {
    static var earlyEvents: EarlyEventHandling { Policy.handling }
    var seen = 0

    mutating func receive(_ input: Int) -> ElementDecision<Int, TestError> {
        seen += 1
        return input < 0 ? .drop : .send(input * 10)
    }

    func receive(completion: Subscribers.Completion<TestError>) -> ElementEnding<Int, TestError> {
        .complete(completion)
    }

    func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
        [(label: "seen", value: seen), (label: "subscribed", value: upstream.subscription != nil)]
    }
}
