extension Result {
    /// A publisher that publishes an output to each subscriber exactly once then finishes, or fails
    /// immediately without producing any elements.
    ///
    /// A success is sent on the subscriber's first demand, followed by `.finished`; a failure is
    /// sent at once, without needing demand.
    public struct Publisher: SluiceCore.Publisher {
        /// The kind of value published by this publisher: the success type.
        public typealias Output = Success

        /// The result to deliver to each subscriber.
        public let result: Result<Success, Failure>

        /// Creates a publisher that delivers the specified result.
        @inlinable
        public init(_ result: Result<Output, Failure>) {
            self.result = result
        }

        /// Creates a publisher that sends the specified output to each subscriber, then finishes.
        @inlinable
        public init(_ output: Output) {
            result = .success(output)
        }

        /// Creates a publisher that immediately terminates upon subscription with the given failure.
        @inlinable
        public init(_ failure: Failure) {
            result = .failure(failure)
        }

        /// Delivers the result: a value on demand then `.finished`, or the failure at once.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Success, S.Failure == Failure {
            switch result {
            case .success(let output):
                subscriber.receive(subscription: SingleValueSubscription(output, downstream: subscriber, name: "Once"))
            case .failure(let error):
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .failure(error))
            }
        }
    }

    /// A publisher that publishes this result to each subscriber exactly once.
    @inlinable
    public var publisher: Publisher {
        Publisher(self)
    }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}
// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Result.Publisher: Sendable where Success: Sendable, Failure: Sendable {}
#endif

extension Result.Publisher {
    /// Transforms the success value at once, returning a new `Result.Publisher`.
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map(transform))
    }
}
