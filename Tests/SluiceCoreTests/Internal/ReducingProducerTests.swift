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
        #expect(upstream.subscription.requests == [.unlimited])  // only the first request goes up
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.values == [])
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(3)", "finished"])
    }

    @Test func asksNothingUpstreamBeforeDownstreamDemand() {
        let (upstream, subscriber) = attach(SumUntil(), demand: .none)
        #expect(upstream.subscription.requests == [])
        subscriber.request(.max(1))
        #expect(upstream.subscription.requests == [.unlimited])
    }

    @Test func holdsTheResultUntilDemandArrives() {
        let (upstream, subscriber) = attach(SumUntil(), demand: .none)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "value(4)", "finished"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions.count == 3)
    }

    @Test func finishesWithoutAValueWhenThereIsNoResult() {
        let (upstream, subscriber) = attach(SumUntil(hasResult: false), demand: .none)
        upstream.send(completion: .finished)
        #expect(subscriber.eventDescriptions == ["subscription(Sum)", "finished"])
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
        #expect(upstream.subscription.requests == [])  // decided before asking for anything
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

    @Test func descriptionMirrorAndPlayground() {
        let subscriber = TestSubscriber<Int, TestError>()
        let producer = ReducingProducer(reducer: SumUntil(), downstream: subscriber, name: "Sum")
        #expect(producer.description == "Sum")
        #expect(producer.playgroundDescription as? String == "Sum")
        #expect(Mirror(reflecting: producer).children.map(\.label) == ["downstream"])
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
