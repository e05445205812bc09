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
