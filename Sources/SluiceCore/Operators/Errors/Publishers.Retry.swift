extension Publishers {
    /// A publisher that attempts to recreate its subscription to a failed upstream publisher.
    ///
    /// Demand the downstream requested and did not receive is requested again from each new
    /// subscription. Upstreams that fail synchronously are re-subscribed in a loop, not recursively.
    public struct Retry<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher publishes: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of retry attempts to perform; `nil` retries indefinitely.
        public let retries: Int?

        /// Creates a publisher that attempts to recreate its subscription to a failed upstream
        /// publisher.
        @inlinable
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        /// Attaches the subscriber through a subscription that re-subscribes on failure.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            RetrySubscription(upstream: upstream, retries: retries, downstream: subscriber).start()
        }
    }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

/// The subscription behind `retry`: forwards values, tracks outstanding demand, and re-subscribes
/// to the upstream on failure while retries remain (a negative count: forever). As Apple's: the
/// demand the downstream returns from `receive(_:)` is requested from the upstream, a value
/// nobody asked for traps, the mirror has no children.
@usableFromInline
final class RetrySubscription<Upstream: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline typealias Input = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure

    @usableFromInline let lock = Lock()
    @usableFromInline let upstream: Upstream
    // Guarded by `lock`, which makes their exclusivity explicit: no runtime checks.
    @exclusivity(unchecked) @usableFromInline var state: SwitchingUpstream<Downstream>
    @exclusivity(unchecked) @usableFromInline var remaining: Int?
    @exclusivity(unchecked) @usableFromInline var subscribing = false
    @exclusivity(unchecked) @usableFromInline var resubscribe = false

    @inlinable
    init(upstream: Upstream, retries: Int?, downstream: Downstream) {
        self.upstream = upstream
        self.remaining = retries
        state = SwitchingUpstream(downstream: downstream)
    }

    @usableFromInline var description: String { "Retry" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }

    /// Subscribes to the upstream, looping while subscriptions fail synchronously.
    @inlinable
    func start() {
        lock.withLock { subscribing = true }
        while true {
            upstream.attachSubscriber(self)
            let again: Bool = lock.withLock {
                if resubscribe && !state.terminated {
                    resubscribe = false
                    return true
                }
                subscribing = false
                return false
            }
            if !again { return }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { state.request(demand) }?.request(demand)
    }

    @inlinable
    func cancel() {
        lock.withLock { state.cancel() }?.cancel()
    }

    @inlinable
    func receive(subscription: any Subscription) {
        lock.withLock { state.attach(subscription) }.perform(on: subscription, owner: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let target = lock.withLock({ state.willDeliver("retry") }) else { return .none }
        let more = target.receive(input)
        guard more != .none else { return .none }
        // As Apple's Combine: requested from the upstream (the next one, if it is between two),
        // not returned.
        lock.withLock { state.returned(more) }?.request(more)
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let action: Action = lock.withLock {
            guard !state.terminated else { return .nothing }
            // A negative count retries forever, as in Apple's Combine.
            if case .failure = completion, remaining.map({ $0 != 0 }) ?? true {
                remaining = remaining.map { $0 > 0 ? $0 - 1 : $0 }
                state.detachCurrent()
                if subscribing {
                    resubscribe = true
                    return .nothing
                }
                return .restart
            }
            return state.terminate().map { .deliver($0) } ?? .nothing
        }
        switch action {
        case .nothing: break
        case .restart: start()
        case .deliver(let downstream): downstream.receive(completion: completion)
        }
    }

    @usableFromInline
    enum Action { case nothing, restart, deliver(Downstream) }
}

extension Publisher {
    /// Attempts to recreate a failed subscription with the upstream publisher up to the number of
    /// times you specify.
    ///
    /// - Parameter retries: The number of times to attempt to recreate the subscription.
    /// - Returns: A publisher that attempts to recreate its subscription to a failed upstream
    ///   publisher.
    @inlinable
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}

// MARK: Fused overloads

extension Just {
    /// `Just` never fails: returns this publisher.
    @inlinable
    public func retry(_ times: Int) -> Just<Output> { self }
}

extension Optional.Publisher {
    /// `Optional.Publisher` never fails: returns this publisher.
    @inlinable
    public func retry(_ times: Int) -> Optional<Wrapped>.Publisher { self }
}

extension Result.Publisher {
    /// Subscribing again would deliver the same result: returns this publisher.
    @inlinable
    public func retry(_ times: Int) -> Result<Output, Failure>.Publisher { self }
}
