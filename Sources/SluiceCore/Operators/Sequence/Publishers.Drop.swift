extension Publishers {
    /// A publisher that omits a specified number of elements before republishing later elements.
    ///
    /// `Drop` has a subscription of its own (named "Drop"), which, as in Combine, reaches the
    /// subscriber before the operator subscribes upstream. Demand: what the subscriber requests
    /// before the upstream's subscription arrives is kept, and asked for together with ``count``
    /// when it arrives (so the dropped elements never use the subscriber's demand: a subscriber
    /// that asks for `.max(1)` receives the first element after the dropped ones). Later requests,
    /// and the demand returned from `receive(_:)`, pass through unchanged.
    public struct Drop<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The number of elements to drop.
        public let count: Int

        /// Creates a publisher that omits a specified number of elements before republishing later
        /// elements.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - count: The number of elements to drop; must not be negative (as in Combine, a
        ///     negative count traps when the publisher is subscribed to).
        @inlinable
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Gives the subscriber the operator's own subscription, then subscribes upstream.
        ///
        /// - Precondition: ``count`` is not negative.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            precondition(count >= 0, "Can't drop a negative number of elements")
            let inner = Inner(downstream: subscriber, count: count)
            subscriber.receive(subscription: inner)
            upstream.attachSubscriber(inner)
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop {
    /// The upstream's subscriber and the downstream's subscription of `Drop`.
    ///
    /// The countdown of elements still to drop is touched only by the upstream's serialised
    /// `receive` calls; the lock guards the two sides' references and the demand requested before
    /// the upstream's subscription arrived.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let lock = Lock()
        /// Elements still to drop; touched only by the upstream's serialised calls.
        @exclusivity(unchecked) @usableFromInline var remaining: Int
        // Guarded by `lock`:
        @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
        @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
        /// What the subscriber requested before the upstream's subscription arrived.
        @exclusivity(unchecked) @usableFromInline var pendingDemand = Subscribers.Demand.none

        @inlinable
        init(downstream: Downstream, count: Int) {
            self.downstream = downstream
            remaining = count
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let (accepted, demand) = lock.withLock { () -> (Bool?, Subscribers.Demand) in
                // As in Combine, a subscription arriving after a cancel or the end is ignored.
                if upstream.isTerminal { return (nil, .none) }
                guard upstream.attach(subscription) else { return (false, .none) }
                defer { pendingDemand = .none }
                return (true, pendingDemand)
            }
            switch accepted {
            case true?:
                let demand = demand + remaining
                if demand != .none { subscription.request(demand) }
            case false?:
                subscription.cancel()
            case nil:
                break
            }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            if remaining > 0 {
                remaining -= 1
                return .none  // asked for with the subscription
            }
            guard let target = lock.withLock({ upstream.isTerminal ? nil : downstream }) else {
                return .none
            }
            return target.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let target = lock.withLock { () -> Downstream? in
                guard upstream.finish() else { return nil }
                defer { downstream = nil }
                return downstream
            }
            target?.receive(completion: completion)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let subscription = lock.withLock { () -> (any Subscription)? in
                // (The downstream is gone exactly when the upstream is: asking the upstream's phase
                // spares this path, which runs unspecialised, the metadata of `Downstream?`.)
                guard !upstream.isTerminal else { return nil }
                if upstream.isAwaiting { pendingDemand += demand }
                return upstream.subscription
            }
            subscription?.request(demand)
        }

        @inlinable
        func cancel() {
            let (subscription, released) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
                defer { downstream = nil }
                return (upstream.detach(), downstream)
            }
            subscription?.cancel()
            _ = released
        }

        @usableFromInline var description: String { "Drop" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Omits the specified number of elements before republishing subsequent elements.
    ///
    /// Use `dropFirst(_:)` when you want to drop the first `n` elements from the upstream
    /// publisher, and republish the remaining elements:
    ///
    /// ```swift
    /// let numbers = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    /// cancellable = numbers.publisher
    ///     .dropFirst(5)
    ///     .sink { print("\($0)", terminator: " ") }
    /// // Prints: "6 7 8 9 10 "
    /// ```
    ///
    /// The operator asks the upstream for `count` more elements than the subscriber requested
    /// before the upstream's subscription arrived, so the dropped elements don't use the
    /// subscriber's demand.
    ///
    /// - Parameter count: The number of elements to omit. The default is `1`.
    /// - Returns: A publisher that doesn't republish the first `count` elements.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}

// MARK: Fused overloads

extension Publishers.Drop {
    /// Fuses two consecutive `dropFirst`s into one `Drop` that drops both counts.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Upstream> {
        Publishers.Drop(upstream: upstream, count: self.count + count)
    }
}

extension Publishers.Sequence {
    /// Drops the first elements of the sequence itself.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
        Publishers.Sequence<DropFirstSequence<Elements>, Failure>(sequence: DropFirstSequence(sequence, dropping: count))
    }
}

extension Just {
    /// Drops the one output if `count` is positive: publishes nothing, or the output.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "Can't drop a negative number of elements")
        return Optional<Output>.Publisher(count > 0 ? nil : output)
    }
}

extension Optional.Publisher {
    /// Drops the output, if any, when `count` is positive.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Wrapped>.Publisher {
        precondition(count >= 0, "Can't drop a negative number of elements")
        return Optional<Wrapped>.Publisher(count > 0 ? nil : output)
    }
}
