extension Publishers {
    /// A publisher that measures and emits the time interval between events received from an
    /// upstream publisher.
    ///
    /// The first interval is measured from the moment the subscription arrives; each value is
    /// replaced by the scheduler's `now` minus the time of the previous event. Demand passes
    /// through: what the subscriber returns from `receive(_:)` is requested from the upstream.
    public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: strides of the scheduler's time.
        public typealias Output = Context.SchedulerTimeType.Stride

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The scheduler used for tracking the timing of events.
        public let scheduler: Context

        /// Creates a publisher that measures and emits the time interval between events received
        /// from an upstream publisher.
        @inlinable
        public init(upstream: Upstream, scheduler: Context) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches the subscriber through a subscription that measures the intervals.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(IntervalMeter<Upstream.Output, S, Context>(downstream: subscriber, scheduler: scheduler))
        }
    }
}

/// The subscription of `measureInterval(using:)`.
@usableFromInline
final class IntervalMeter<Input, Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Context.SchedulerTimeType.Stride {
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    @exclusivity(unchecked) @usableFromInline var last: Context.SchedulerTimeType?
    @usableFromInline let scheduler: Context

    @inlinable
    init(downstream: Downstream, scheduler: Context) {
        self.downstream = downstream
        self.scheduler = scheduler
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let verdict: SubscriptionVerdict<Downstream> = lock.withLock {
            guard upstream == nil else { return .reject }
            guard let downstream else { return .ignore }
            upstream = subscription
            return .accept(downstream)
        }
        guard case .accept(let downstream) = verdict else {
            if case .reject = verdict { subscription.cancel() }
            return
        }
        let start = scheduler.now
        lock.withLock { last = start }
        downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard lock.withLock({ downstream != nil && last != nil }) else { return .none }
        let now = scheduler.now
        let step: (Downstream, Context.SchedulerTimeType.Stride)? = lock.withLock {
            guard let downstream, let previous = last else { return nil }
            last = now
            return (downstream, previous.distance(to: now))
        }
        guard let (downstream, interval) = step else { return .none }
        let demand = downstream.receive(interval)
        if demand > .none, let upstream = lock.withLock({ self.downstream == nil ? nil : upstream }) {
            upstream.request(demand)
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let downstream: Downstream? = lock.withLock {
            guard upstream != nil else { return nil }
            defer {
                self.downstream = nil
                upstream = nil
            }
            return self.downstream
        }
        downstream?.receive(completion: completion)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        lock.withLock { downstream == nil ? nil : upstream }?.request(demand)
    }

    @inlinable
    func cancel() {
        let upstream: (any Subscription)? = lock.withLock {
            downstream = nil
            defer { self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }

    @usableFromInline var description: String { "MeasureInterval" }

    @usableFromInline var playgroundDescription: Any { description }

    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Publisher {
    /// Measures and emits the time interval between events received from an upstream publisher.
    ///
    /// - Parameters:
    ///   - scheduler: A scheduler to use for tracking the timing of events.
    ///   - options: Options that customize the delivery of elements.
    /// - Returns: A publisher that emits elements representing the time interval between the
    ///   elements it receives.
    @inlinable
    public func measureInterval<S: Scheduler>(using scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.MeasureInterval<Self, S>
    {
        Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
    }
}
