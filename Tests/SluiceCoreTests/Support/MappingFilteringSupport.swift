import SluiceCore
import SluiceTesting

/// The `TestError` a subscriber's failure completion carries, if any (for `any Error` failures).
func recordedTestError<Input, Failure: Error>(_ subscriber: TestSubscriber<Input, Failure>) -> TestError? {
    guard case .failure(let error) = subscriber.completion else { return nil }
    return error as? TestError
}

/// Subscribes a fresh `TestSubscriber` through `attach`, ends the subscription with `end` (cancel
/// or completion), and returns whether the subscriber is still alive: it must not be.
func subscriberSurvives<Input, Failure: Error>(
    _ attach: (TestSubscriber<Input, Failure>) -> Void,
    end: (TestSubscriber<Input, Failure>) -> Void
) -> Bool {
    weak var weakSubscriber: TestSubscriber<Input, Failure>?
    do {
        let subscriber = TestSubscriber<Input, Failure>()
        weakSubscriber = subscriber
        attach(subscriber)
        end(subscriber)
    }
    return weakSubscriber != nil
}

/// What an operator does with an upstream that sends before its subscription: subscribes the
/// operator made by `make` to a ``LatePublisher``, sends `value` and then `.finished` before any
/// subscription, and returns the demand the value returned and the events the subscriber saw
/// (it returns `.max(42)` for each value).
func eventsBeforeTheSubscription<Value, P: Publisher>(
    sending value: Value, _ make: (LatePublisher<Value, Never>) -> P
) -> (demand: Subscribers.Demand, events: [String]) {
    let upstream = LatePublisher<Value, Never>()
    let subscriber = TestSubscriber<P.Output, P.Failure>(demandPerValue: .max(42))
    make(upstream).subscribe(subscriber)
    let demand = upstream.send(value)
    upstream.send(completion: .finished)
    return (demand, subscriber.eventDescriptions)
}

/// What an operator does with a subscription that arrives after its subscriber cancelled: returns
/// the requests and cancellations the late subscription saw.
func lateSubscriptionAfterCancel<Value, P: Publisher>(
    _ make: (LatePublisher<Value, Never>) -> P
) -> (requests: [Subscribers.Demand], cancels: Int) {
    let upstream = LatePublisher<Value, Never>()
    make(upstream).subscribe(TestSubscriber<P.Output, P.Failure>())
    (upstream.subscriber as? any Subscription)?.cancel()
    let subscription = ManualPublisher<Value, Never>.Subscription()
    upstream.send(subscription: subscription)
    return (subscription.requests, subscription.cancelCount)
}

/// The labels of the `customMirror` children of the subscription the operator made by `make`
/// gives its subscriber.
func subscriptionMirrorLabels<P: Publisher>(_ make: (PassthroughSubject<Int, Never>) -> P) -> [String?] {
    let subscriber = TestSubscriber<P.Output, P.Failure>()
    make(PassthroughSubject<Int, Never>()).subscribe(subscriber)
    return subscriber.subscription.map { Mirror(reflecting: $0).children.map(\.label) } ?? ["<no subscription>"]
}
