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
/// to the upstream on failure while retries remain.
@usableFromInline
final class RetrySubscription<Upstream: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, CustomStringConvertible, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline typealias Input = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure

    private let lock = Lock()
    private let upstream: Upstream
    private var remaining: Int?
    private var downstream: Downstream?
    private var current: (any Subscription)?
    private var outstanding = Subscribers.Demand.none
    private var subscribedDownstream = false
    private var terminated = false
    private var subscribing = false
    private var resubscribe = false

    @usableFromInline
    init(upstream: Upstream, retries: Int?, downstream: Downstream) {
        self.upstream = upstream
        self.remaining = retries
        self.downstream = downstream
    }

    @usableFromInline var description: String { "Retry" }

    /// Subscribes to the upstream, looping while subscriptions fail synchronously.
    @usableFromInline
    func start() {
        lock.withLock { subscribing = true }
        while true {
            upstream.receive(subscriber: self)
            let again: Bool = lock.withLock {
                if resubscribe && !terminated {
                    resubscribe = false
                    return true
                }
                subscribing = false
                return false
            }
            if !again { return }
        }
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let subscription: (any Subscription)? = lock.withLock {
            guard !terminated else { return nil }
            outstanding += demand
            return current
        }
        subscription?.request(demand)
    }

    @usableFromInline
    func cancel() {
        let subscription: (any Subscription)? = lock.withLock {
            guard !terminated else { return nil }
            terminated = true
            downstream = nil
            defer { current = nil }
            return current
        }
        subscription?.cancel()
    }

    @usableFromInline
    func receive(subscription: any Subscription) {
        let step: Step = lock.withLock {
            guard !terminated, current == nil else { return .cancel }
            current = subscription
            if !subscribedDownstream, let downstream {
                subscribedDownstream = true
                return .subscribeDownstream(downstream)
            }
            return outstanding == .none ? .nothing : .request(outstanding)
        }
        switch step {
        case .cancel: subscription.cancel()
        case .subscribeDownstream(let downstream): downstream.receive(subscription: self)
        case .request(let demand): subscription.request(demand)
        case .nothing: break
        }
    }

    @usableFromInline
    func receive(_ input: Input) -> Subscribers.Demand {
        let target: Downstream? = lock.withLock {
            guard !terminated, let downstream else { return nil }
            if outstanding != .unlimited, outstanding > .none { outstanding -= 1 }
            return downstream
        }
        guard let target else { return .none }
        let more = target.receive(input)
        guard more != .none else { return .none }
        return lock.withLock {
            guard !terminated else { return .none }
            outstanding += more
            return more
        }
    }

    @usableFromInline
    func receive(completion: Subscribers.Completion<Failure>) {
        let action: Action = lock.withLock {
            guard !terminated else { return .nothing }
            if case .failure = completion, remaining.map({ $0 > 0 }) ?? true {
                remaining = remaining.map { $0 - 1 }
                current = nil
                if subscribing {
                    resubscribe = true
                    return .nothing
                }
                return .restart
            }
            terminated = true
            current = nil
            defer { downstream = nil }
            return downstream.map { .deliver($0) } ?? .nothing
        }
        switch action {
        case .nothing: break
        case .restart: start()
        case .deliver(let downstream): downstream.receive(completion: completion)
        }
    }

    private enum Step { case cancel, subscribeDownstream(Downstream), request(Subscribers.Demand), nothing }
    private enum Action { case nothing, restart, deliver(Downstream) }
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
