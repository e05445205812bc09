/// Declares that a type can transmit a sequence of values over time.
///
/// A publisher delivers elements to one or more ``Subscriber`` instances. The subscriber's
/// `Input` and `Failure` types must match the publisher's `Output` and `Failure` types.
///
/// The sequence of events is always: `receive(subscription:)` exactly once, then zero or more
/// `receive(_:)` calls — never more than the subscriber has requested through the
/// ``Subscription`` — then at most one `receive(completion:)`.
public protocol Publisher<Output, Failure> {
    /// The kind of values published by this publisher.
    associatedtype Output
    /// The kind of errors this publisher might publish. Use `Never` if it cannot fail.
    associatedtype Failure: Error

    /// Attaches the specified subscriber to this publisher.
    ///
    /// Implementations must call `subscriber.receive(subscription:)` exactly once before any other
    /// event. Call ``Publisher/subscribe(_:)-m2lh`` rather than this method to attach a subscriber.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches the specified subscriber to this publisher.
    ///
    /// Always call this function instead of ``Publisher/receive(subscriber:)``: it is where an
    /// enabled `_Introspection` sees the subscription (one flag check when none is enabled).
    @inlinable
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        if introspectionIsActive {
            subscribeIntrospected(subscriber)
            return
        }
        receive(subscriber: subscriber)
    }

    /// Attaches the specified subject to this publisher.
    ///
    /// The subject requests `.unlimited` values and re-publishes each value and the completion to
    /// its own subscribers. - Returns: A cancellable that ends the attachment when cancelled or
    /// deallocated.
    @inlinable
    public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable
    where S.Output == Output, S.Failure == Failure {
        let subscriber = SubjectSubscriber(subject)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}

/// A namespace for types that serve as publishers.
///
/// The various operators defined as extensions on ``Publisher`` implement their functionality as
/// structures that extend this enumeration: `map` returns a `Publishers.Map`, and so on.
public enum Publishers {}
