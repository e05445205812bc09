extension Optional {
    /// The type of a Combine publisher that publishes the value of a Swift optional instance to
    /// each subscriber exactly once, if the instance has any value at all.
    ///
    /// With a value, a subscriber receives it on its first demand, then `.finished`; with `nil`, it
    /// receives `.finished` at once. Never fails.
    public struct Publisher: SluiceCore.Publisher {
        /// The kind of value published by this publisher: the wrapped type.
        public typealias Output = Wrapped
        /// This publisher cannot fail.
        public typealias Failure = Never

        /// The output to deliver to each subscriber.
        public let output: Wrapped?

        /// Creates a publisher to emit the value of the optional, or to finish immediately if the
        /// optional doesn't have a value.
        @inlinable
        public init(_ output: Output?) {
            self.output = output
        }

        /// Sends the value (on demand) and `.finished`, or just `.finished` when empty.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Wrapped, S.Failure == Never {
            if let output {
                subscriber.receive(subscription: SingleValueSubscription(output, downstream: subscriber, name: "Optional"))
            } else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
            }
        }
    }

    /// A publisher that publishes an optional value to each subscriber exactly once, if the
    /// optional has a value.
    @inlinable
    public var publisher: Publisher {
        Publisher(self)
    }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}
// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Optional.Publisher: Sendable where Wrapped: Sendable {}
#endif

extension Optional.Publisher {
    /// Transforms the value at once, returning a new `Optional.Publisher`.
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map(transform))
    }

    /// Tests the value at once: the result publishes it if it matches, and is empty otherwise.
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
    }
}
