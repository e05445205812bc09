extension Publishers {
    /// A publisher that buffers a maximum number of items.
    ///
    /// It publishes an array each time `count` elements have arrived, and the remaining elements
    /// (if any) when the upstream finishes. Demand counts arrays: a request for `n` arrays asks
    /// the upstream for `n × count` elements. If the upstream fails, the partial array is
    /// discarded and the failure passes through.
    public struct CollectByCount<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: arrays of the upstream's outputs.
        public typealias Output = [Upstream.Output]

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of received elements to buffer before publishing.
        public let count: Int

        /// Creates a publisher that buffers a maximum of `count` items before publishing them.
        @inlinable
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber through a subscription that batches the upstream's elements.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(Inner(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {}

extension Publishers.CollectByCount {
    /// The upstream's subscriber and the downstream's subscription: multiplies demand by
    /// ``count`` and publishes full batches.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let lock = Lock()
        @usableFromInline let count: Int
        /// Touched only by the upstream's (serialised) `receive` calls, never under the lock.
        @exclusivity(unchecked) @usableFromInline var buffer: [Upstream.Output] = []
        // Guarded by `lock`:
        @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
        @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
        @exclusivity(unchecked) @usableFromInline var isCancelled = false
        /// Set when the downstream cancels before the upstream's subscription arrived.
        @exclusivity(unchecked) @usableFromInline var cancelledBeforeSubscription = false

        @inlinable
        init(downstream: Downstream, count: Int) {
            self.downstream = downstream
            self.count = count
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let attached = lock.withLock { () -> Bool? in
                // As in Combine, a subscription arriving after a cancel that came before any
                // subscription is ignored, not cancelled.
                if cancelledBeforeSubscription { return nil }
                guard downstream != nil else { return false }
                return upstream.attach(subscription)
            }
            guard let attached else { return }
            guard attached else {
                subscription.cancel()
                return
            }
            lock.withLock { downstream }?.receive(subscription: self)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let target = lock.withLock({ () -> Downstream? in
                upstream.subscription == nil ? nil : downstream
            }) else { return .none }
            if buffer.isEmpty { buffer.reserveCapacity(count) }
            buffer.append(input)
            guard buffer.count >= count else { return .none }
            let batch = buffer
            buffer = []
            return target.receive(batch) * count
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            guard let target = lock.withLock({ () -> Downstream? in
                guard upstream.finish() else { return nil }
                defer { downstream = nil }
                return downstream
            }) else { return }
            let remainder = buffer
            buffer = []
            if case .finished = completion, !remainder.isEmpty {
                _ = target.receive(remainder)
                if lock.withLock({ isCancelled }) { return }
            }
            target.receive(completion: completion)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            lock.withLock { upstream.subscription }?.request(demand * count)
        }

        @inlinable
        func cancel() {
            let (subscription, released) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
                isCancelled = true
                if upstream.isAwaiting { cancelledBeforeSubscription = true }
                defer { downstream = nil }
                return (upstream.detach(), downstream)
            }
            subscription?.cancel()
            _ = released
        }

        @usableFromInline var description: String { "CollectByCount" }
        @usableFromInline var customMirror: Mirror {
            let (downstream, subscription) = lock.withLock { (self.downstream as Any, upstream.subscription as Any) }
            return Mirror(self, children: ["downstream": downstream, "upstreamSubscription": subscription,
                                           "buffer": buffer, "count": count])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Collects up to the specified number of elements, and then emits a single array of the
    /// collection.
    ///
    /// If the upstream publisher finishes before collecting the specified number of elements,
    /// the publisher sends an array of only the items it received. This may be fewer than
    /// `count` elements. If the upstream publisher fails with an error, this publisher forwards
    /// the error to the downstream receiver instead of sending its output.
    ///
    /// - Parameter count: The maximum number of received elements to buffer before publishing.
    /// - Returns: A publisher that collects up to the specified number of elements, and then
    ///   publishes them as an array.
    @inlinable
    public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
        Publishers.CollectByCount(upstream: self, count: count)
    }
}
