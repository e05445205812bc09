extension Publishers {
    /// A publisher that ignores elements from the upstream publisher until it receives an element
    /// from second publisher.
    ///
    /// As in Apple's Combine, the subscriber receives its subscription first; then the publisher
    /// subscribes to ``other``, requesting a single value from it, and then to ``upstream``. Until
    /// `other`'s value arrives, every element from the upstream is dropped; after it, elements are
    /// republished (`other` is not cancelled). `other` completing before its first value cancels
    /// the upstream and ends the stream with that completion.
    ///
    /// - Demand: downstream requests are passed to the upstream (those made before its
    ///   subscription arrives are added up and requested when it does); dropped elements count
    ///   against them. An upstream sending more than was requested traps, as in Apple's Combine.
    /// - Threading: the upstream and `other` may send on different threads; the downstream's
    ///   calls are serialised. `description` of the subscription is "DropUntilOutput".
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
    where Upstream.Failure == Other.Failure {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's (and `other`'s).
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A publisher to monitor for its first emitted element.
        public let other: Other

        /// Creates a publisher that ignores elements from the upstream publisher until it receives
        /// an element from another publisher.
        ///
        /// - Parameters:
        ///   - upstream: A publisher to drop elements from while waiting for another publisher to
        ///     emit elements.
        ///   - other: A publisher to monitor for its first emitted element.
        @inlinable
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Subscribes to `other`, then attaches the subscriber to the upstream through the
        /// operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = UntilOutputSubscription<S, Other.Output, Other.Failure, DropUntilOutputFlavor>(
                downstream: subscriber, bridgeFailure: { $0 })
            inner.start()
            other.attachSubscriber(inner.trigger)
            upstream.attachSubscriber(inner)
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publisher {
    /// Ignores elements from the upstream publisher until it receives an element from a second
    /// publisher.
    ///
    /// This publisher requests a single value from the second publisher, and it ignores (drops)
    /// all elements from the upstream publisher until the second publisher produces a value. Then
    /// it lets the upstream's events pass through. Dropped elements count against the demand the
    /// downstream requested, as in Apple's Combine.
    ///
    /// ```swift
    /// let upstream = PassthroughSubject<Int, Never>()
    /// let second = PassthroughSubject<String, Never>()
    /// cancellable = upstream
    ///     .drop(untilOutputFrom: second)
    ///     .sink { print("\($0)", terminator: " ") }
    ///
    /// upstream.send(1)
    /// upstream.send(2)
    /// second.send("A")
    /// upstream.send(3)
    /// upstream.send(4)
    /// // Prints "3 4"
    /// ```
    ///
    /// - Parameter publisher: A publisher to monitor for its first emitted element.
    /// - Returns: A publisher that drops elements from the upstream publisher until the `other`
    ///   publisher produces a value.
    @inlinable
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
    where Failure == P.Failure {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}
