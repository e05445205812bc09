/// A protocol that declares a type that can receive input from a publisher.
///
/// A subscriber receives exactly one subscription, requests values from it with a
/// ``Subscribers/Demand``, receives at most that many values (plus whatever demand it returns
/// from ``receive(_:)``), and at most one completion.
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    /// The kind of values this subscriber receives.
    associatedtype Input
    /// The kind of errors this subscriber might receive. Use `Never` if it cannot receive errors.
    associatedtype Failure: Error

    /// Tells the subscriber that it has successfully subscribed to the publisher and may request
    /// items. Use the received ``Subscription`` to request items from the publisher.
    func receive(subscription: any Subscription)

    /// Tells the subscriber that the publisher has produced an element.
    ///
    /// - Returns: Additional demand: how many *more* elements the subscriber expects, added to
    ///   what it has already requested. Return `.none` to leave the demand unchanged.
    func receive(_ input: Input) -> Subscribers.Demand

    /// Tells the subscriber that the publisher has completed publishing, either normally or with
    /// an error. Nothing follows a completion.
    func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
    /// Tells the subscriber that a publisher of void elements is ready to receive further
    /// requests. Equivalent to `receive(())`.
    @inlinable
    public func receive() -> Subscribers.Demand {
        receive(())
    }
}

/// A namespace for types that serve as subscribers.
public enum Subscribers {}
