/// A protocol representing the connection of a subscriber to a publisher.
///
/// Subscriptions are class constrained because a subscription has identity, defined by the moment
/// a particular subscriber attached to a publisher. Cancelling a subscription must be thread-safe
/// and idempotent; after it, the publisher sends nothing more to the subscriber.
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Tells a publisher that it may send more values to the subscriber.
    ///
    /// Demand accumulates: a request of `.max(2)` followed by `.max(3)` allows five values.
    /// Requesting `.none` (zero) is a programmer error and stops the program.
    func request(_ demand: Subscribers.Demand)
}

/// A namespace for symbols related to subscriptions.
public enum Subscriptions {}

extension Subscriptions {
    /// Returns the "empty" subscription.
    ///
    /// Use the empty subscription when you need a ``Subscription`` that ignores requests and
    /// cancellation — for example, to send a subscription before an immediate completion.
    public static var empty: any Subscription { EmptySubscription.singleton }
}

/// The subscription behind ``Subscriptions/empty``: ignores requests and cancellation. Unchecked:
/// its one field, a `CombineIdentifier`, is an immutable integer, though not `Sendable` under the
/// `AppleConcurrencyShape` trait.
final class EmptySubscription: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    static let singleton = EmptySubscription()
    let combineIdentifier = CombineIdentifier()
    private init() {}
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
    var description: String { "Empty" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
    var playgroundDescription: Any { description }
}
