@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

/// A reducer for testing the engine: sums values, decides early on `stopAt`, fails on `failAt`.
private struct SumUntil: Reducer {
    typealias Input = Int
    typealias UpstreamFailure = TestError
    typealias Output = Int
    typealias Failure = TestError
    var sum = 0
    var stopAt: Int?
    var failAt: Int?
    var hasResult = true

    mutating func receive(_ input: Int) -> ReducerStep<Int, TestError> {
        if input == failAt { return .fail(TestError(code: input)) }
        sum += input
        if input == stopAt { return .finish(sum) }
        return .continue
    }

    func result() -> Int? { hasResult ? sum : nil }
    func convert(_ failure: TestError) -> TestError { failure }
}

private func attach(_ reducer: SumUntil, demand: Subscribers.Demand = .unlimited)
    -> (ManualPublisher<Int, TestError>, TestSubscriber<Int, TestError>) {
    let upstream = ManualPublisher<Int, TestError>()
    let subscriber = TestSubscriber<Int, TestError>(initialDemand: demand)
    upstream.subscribe(ReducingProducer(reducer: reducer, downstream: subscriber, name: "Sum"))
    return (upstream, subscriber)
}

@Suite("ReducingProducer")
struct ReducingProducerTests {
    @Test func requestsUnlimitedOnceThenPublishesTheResultAndFinishes() {
        let (upstream, subscriber) = attach(SumUntil())
        #expect(upstream.subscription.requests == [.unlimited])
        subscriber.request(.max(1))
        #expect(upstream.subscription.requests == [.unlimited])  // the downstream's demand stays here
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.values == [])
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(3)", "finished"])
    }

    /// Apple's reducing operators ask the upstream for everything as soon as they are subscribed,
    /// whatever the downstream asks.
    @Test func requestsUnlimitedUpstreamBeforeAnyDownstreamDemand() {
        let (upstream, subscriber) = attach(SumUntil(), demand: .none)
        #expect(upstream.subscription.requests == [.unlimited])
        subscriber.request(.max(1))
        #expect(upstream.subscription.requests == [.unlimited])
    }

    /// The subscription goes downstream first; the upstream is asked once that call returns.
    @Test func passesItselfDownstreamBeforeRequestingUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        let seen = Shared<[Subscribers.Demand]?>(nil)
        subscriber.onSubscription = { _ in seen.value = upstream.subscription.requests }
        upstream.subscribe(ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum"))
        #expect(seen.value == [])
        #expect(upstream.subscription.requests == [.unlimited])
    }

    @Test func cancelInsideReceiveSubscriptionAsksNothingUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        subscriber.onSubscription = { $0.cancel() }
        upstream.subscribe(ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum"))
        #expect(upstream.subscription.requests == [])
        #expect(upstream.subscription.cancelCount == 1)
    }

    /// As Apple's: a cancel before the subscription is ignored, and the subscription that comes
    /// afterwards is taken and asked for everything.
    @Test func cancelBeforeTheSubscriptionIsIgnored() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        let producer = ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum")
        producer.cancel()
        let subscription = ManualPublisher<Int, TestError>.Subscription()
        producer.receive(subscription: subscription)
        #expect(subscription.requests == [.unlimited])
        #expect(subscription.cancelCount == 0)
        #expect(subscriber.subscriptionsReceived == 1)
    }

    /// As Apple's: values and a completion before the subscription are ignored; a request
    /// before it is kept.
    @Test func eventsBeforeTheSubscriptionAreIgnoredAndARequestIsKept() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        let producer = ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum")
        #expect(producer.receive(5) == .none)
        producer.receive(completion: .finished)
        producer.request(.max(1))
        #expect(subscriber.eventDescriptions == [])
        let subscription = ManualPublisher<Int, TestError>.Subscription()
        producer.receive(subscription: subscription)
        #expect(subscription.requests == [.unlimited])
        _ = producer.receive(2)
        producer.receive(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(2)", "finished"])
    }

    @Test func cancelThenRequestThenCancelCancelsUpstreamOnce() {
        let (upstream, subscriber) = attach(SumUntil(), demand: .none)
        let subscription = subscriber.subscription
        subscription?.cancel()
        subscription?.request(.unlimited)
        subscription?.cancel()
        #expect(upstream.subscription.requests == [.unlimited])
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func aSubscriptionAfterTheEndIsCancelled() {
        let subscriber = TestSubscriber<Int, TestError>()
        let producer = ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum")
        producer.receive(subscription: ManualPublisher<Int, TestError>.Subscription())
        producer.receive(completion: .finished)
        let late = ManualPublisher<Int, TestError>.Subscription()
        producer.receive(subscription: late)
        #expect(late.cancelCount == 1)
        #expect(late.requests == [])
        #expect(subscriber.subscriptionsReceived == 1)
    }

    /// Even an answer without a value waits for demand, as Apple's does.
    @Test func finishesWithoutAValueWhenThereIsNoResultOnceAsked() {
        let (upstream, subscriber) = attach(SumUntil(hasResult: false), demand: .none)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "finished"])

        let (eager, asked) = attach(SumUntil(hasResult: false), demand: .max(1))
        eager.send(completion: .finished)
        #expect(asked.eventDescriptions == ["subscription(Sum)", "finished"])
    }

    @Test func passesAFailureThroughWithoutDemand() {
        let (upstream, subscriber) = attach(SumUntil(), demand: .none)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 9)))
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "failure(TestError(code: 9))"])
    }

    @Test func earlyFinishCancelsUpstreamAndCompletesOnce() {
        let (upstream, subscriber) = attach(SumUntil(stopAt: 2))
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(3)", "finished"])
        // A misbehaving upstream that keeps going is ignored.
        upstream.send(5)
        upstream.send(completion: .finished)
        subscriber.cancel()
        #expect(subscriber.eventDescriptions.count == 3)
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func earlyFinishWithoutDemandWaitsForIt() {
        let (upstream, subscriber) = attach(SumUntil(stopAt: 1), demand: .none)
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)"])
        subscriber.request(.max(3))
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(1)", "finished"])
        #expect(upstream.subscription.requests == [.unlimited])  // only the one made on subscription
    }

    @Test func failingStepCancelsUpstreamAndFailsOnce() {
        let (upstream, subscriber) = attach(SumUntil(failAt: 7), demand: .none)
        upstream.send(1)
        upstream.send(7)
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "failure(TestError(code: 7))"])
    }

    @Test func cancelStopsEverythingAndIsIdempotent() {
        let (upstream, subscriber) = attach(SumUntil())
        upstream.send(1)
        subscriber.cancel()
        subscriber.subscription?.cancel()
        #expect(upstream.subscription.cancelCount == 1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)"])
    }

    @Test func cancelWhileHoldingTheResultDropsIt() {
        let (upstream, subscriber) = attach(SumUntil(), demand: .none)
        upstream.send(completion: .finished)
        subscriber.cancel()
        #expect(subscriber.eventDescriptions == ["subscription(Sum)"])
    }

    @Test func cancelInsideReceiveSuppressesFinished() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        upstream.subscribe(ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum"))
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(2)"])
    }

    @Test func requestFromInsideReceiveSubscriptionAndReceive() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        subscriber.onSubscription = { $0.request(.max(1)) }
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .max(1)
        }
        upstream.subscribe(ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum"))
        #expect(upstream.subscription.requests == [.unlimited])
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(3)", "finished"])
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let subscriber = TestSubscriber<Int, TestError>()
        let producer = ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum")
        let first = ManualPublisher<Int, TestError>.Subscription()
        let second = ManualPublisher<Int, TestError>.Subscription()
        producer.receive(subscription: first)
        producer.receive(subscription: second)
        #expect(second.cancelCount == 1)
        #expect(first.cancelCount == 0)
        #expect(subscriber.subscriptionsReceived == 1)
    }

    @Test func releasesTheSubscriberOnCancelAndCompletion() {
        let upstream = ManualPublisher<Int, TestError>()
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        do {
            let subscriber = TestSubscriber<Int, TestError>()
            weakSubscriber = subscriber
            upstream.subscribe(ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum"))
            subscriber.cancel()
        }
        upstream.detachAll()
        #expect(weakSubscriber == nil)
        var producer: ReducingProducer<SumUntil, TestSubscriber<Int, TestError>>?
        do {
            let subscriber = TestSubscriber<Int, TestError>()
            weakSubscriber = subscriber
            producer = ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum")
            upstream.subscribe(producer!)
        }
        #expect(weakSubscriber != nil)
        upstream.send(completion: .finished)
        // The producer is still referenced here, yet lets the subscriber go.
        upstream.detachAll()
        #expect(weakSubscriber == nil)
        #expect(producer != nil)
    }

    /// Apple's reduce-like mirror: `downstream`, `result`, `initial`, `status`.
    @Test func descriptionMirrorAndPlayground() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        let producer = ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum", initial: 10)
        #expect(producer.description == "Sum")
        #expect(producer.playgroundDescription as? String == "Sum")
        let children = Mirror(reflecting: producer).children
        #expect(children.map(\.label) == ["downstream", "result", "initial", "status"])
        #expect(String(describing: children.first!.value).contains("TestSubscriber"))
        #expect(String(describing: Array(children)[2].value) == "Optional(10)")
        let subscription = ManualPublisher<Int, TestError>.Subscription()
        producer.receive(subscription: subscription)
        _ = producer.receive(4)
        producer.receive(completion: .finished)
        #expect(String(describing: Array(Mirror(reflecting: producer).children)[1].value) == "Optional(4)")
    }

    @Test func concurrentRequestsAndCancelDeliverAtMostOnce() {
        for _ in 0..<100 {
            let (upstream, subscriber) = attach(SumUntil(), demand: .none)
            upstream.send(1)
            upstream.send(completion: .finished)
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index == 3 { subscriber.cancel() } else { subscriber.request(.max(1)) }
            }
            #expect(subscriber.values.count <= 1)
            // `.finished` never comes without the value; the cancel may land between the two.
            let completions = subscriber.eventDescriptions.filter { $0 == "finished" }.count
            #expect(completions <= subscriber.values.count)
        }
    }
}
