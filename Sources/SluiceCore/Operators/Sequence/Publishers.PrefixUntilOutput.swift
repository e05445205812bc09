extension Publishers {
    /// A publisher that republishes elements until another publisher emits an element.
    ///
    /// The publisher subscribes to ``other`` first and requests a single value from it; when that
    /// value arrives, it cancels ``upstream`` and finishes (`other` is not cancelled, as in Apple's
    /// Combine). Until then the upstream's elements and completion pass through. `other` finishing
    /// or failing without a value changes nothing (its failure type is unrelated to this
    /// publisher's).
    ///
    /// - Demand: downstream requests, `.none` included, are passed to the upstream unchanged.
    /// - Threading: the upstream and `other` may send on different threads; the downstream's
    ///   calls are serialised, and nothing follows the completion: an element already being
    ///   delivered when `other` emits is delivered first, then `.finished`. If `other` emits
    ///   before the upstream's subscription arrives, the subscriber receives `.finished` without
    ///   ever receiving a subscription, and the upstream's subscription is cancelled when it
    ///   arrives (as in Apple's Combine; an exception to contract rule 1). The subscription has
    ///   no description of its own (Apple's shows its type name).
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Another publisher, whose first output causes this publisher to finish.
        public let other: Other

        /// Creates a publisher that republishes elements until another publisher emits an element.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - other: Another publisher, the first output from which causes this publisher to
        ///     finish.
        @inlinable
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Subscribes to `other`, then attaches the subscriber to the upstream through the
        /// operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = UntilOutputSubscription<S, Other.Output, Other.Failure, PrefixUntilOutputFlavor>(
                downstream: subscriber, bridgeFailure: nil)
            other.attachSubscriber(inner.trigger)
            upstream.attachSubscriber(inner)
        }
    }
}

extension Publisher {
    /// Republishes elements until another publisher emits an element.
    ///
    /// After the second publisher publishes an element, the publisher returned by this method
    /// cancels the upstream and finishes. The second publisher finishing
    /// or failing without an element does not end the stream.
    ///
    /// - Parameter publisher: A second publisher.
    /// - Returns: A publisher that republishes elements until the second publisher publishes an
    ///   element.
    @inlinable
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }
}
