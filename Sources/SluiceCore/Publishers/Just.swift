/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// The value is sent when the subscriber first requests demand, followed by `.finished`. `Just`
/// never fails. Its operators that can be evaluated at once (`map`, `filter`...) return an
/// already-computed publisher instead of building a chain.
public struct Just<Output>: Publisher {
    /// `Just` cannot fail.
    public typealias Failure = Never

    /// The one element that the publisher emits.
    public let output: Output

    /// Initializes a publisher that emits the specified output just once.
    @inlinable
    public init(_ output: Output) {
        self.output = output
    }

    /// Sends the subscriber a subscription that delivers ``output`` and `.finished` on demand.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(subscription: SingleValueSubscription(output, downstream: subscriber, name: "Just"))
    }
}

extension Just: Equatable where Output: Equatable {}
// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Just: Sendable where Output: Sendable {}
#endif

extension Just {
    /// Transforms the output at once, returning a new `Just`.
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Just<T> {
        Just<T>(transform(output))
    }

    /// Tests the output at once: the result publishes it if it matches, and is empty otherwise.
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(isIncluded(output) ? output : nil)
    }
}
