import Sluice

/// A subscriber that requests `.unlimited`, keeps its subscription in a property the test can set
/// to `nil` — dropping the subscription *without* cancelling it — and counts values.
final class HoldingSubscriber<Input, Failure: Error>: Subscriber {
    var subscription: (any Subscription)?
    private(set) var values: [Input] = []

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {}
}
