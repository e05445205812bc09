/// A publisher that immediately terminates with the specified error.
///
/// Subscribers receive ``Subscriptions/empty`` and then `.failure(error)` at once, without
/// needing demand.
public struct Fail<Output, Failure: Error>: Publisher {
    /// The failure to send when terminating the publisher.
    public let error: Failure

    /// Creates a publisher that immediately terminates with the specified failure.
    @inlinable
    public init(error: Failure) {
        self.error = error
    }

    /// Creates a publisher with the specified output type, that immediately terminates with the
    /// specified failure.
    @inlinable
    public init(outputType: Output.Type, failure: Failure) {
        error = failure
    }

    /// Sends the empty subscription, then the failure.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
    }
}

extension Fail: Equatable where Failure: Equatable {}
// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Fail: Sendable where Failure: Sendable {}
#endif
