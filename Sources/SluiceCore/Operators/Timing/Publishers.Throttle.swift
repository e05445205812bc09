extension Publishers {
    /// A publisher that publishes either the most-recent or first element published by the
    /// upstream publisher in a specified time interval.
    ///
    /// It asks the upstream for unlimited values. The first value is published at once (on the
    /// scheduler, `schedule(options:_:)`); a value arriving within `interval` of the last one
    /// published is held, and published when the interval is over
    /// (`schedule(after:tolerance:options:_:)`): the latest value of the interval if `latest` is
    /// `true`, its first otherwise. A value that comes out while the subscriber has no demand is
    /// dropped. A completion waits for a value already scheduled, then follows it.
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The interval in which to find and emit the most recent element.
        public let interval: Context.SchedulerTimeType.Stride

        /// The scheduler on which to publish elements.
        public let scheduler: Context

        /// A Boolean value indicating whether to publish the most recent element (`true`) or the
        /// first (`false`) of each interval.
        public let latest: Bool

        /// Creates a publisher that publishes either the most-recent or first element published
        /// by the upstream publisher in a specified time interval.
        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        /// Attaches the subscriber through a throttling subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(Throttler(downstream: subscriber, interval: interval, scheduler: scheduler, latest: latest))
        }
    }
}

/// The subscription of `throttle(for:scheduler:latest:)`.
@usableFromInline
final class Throttler<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
    @exclusivity(unchecked) @usableFromInline var held: Input?
    @exclusivity(unchecked) @usableFromInline var lastEmission: Context.SchedulerTimeType?
    @exclusivity(unchecked) @usableFromInline var outputScheduled = false
    @exclusivity(unchecked) @usableFromInline var completion: Subscribers.Completion<Failure>?
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let latest: Bool

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
        self.downstream = downstream
        self.interval = interval
        self.scheduler = scheduler
        self.latest = latest
        _ = scheduler.now   // Apple's reads the clock here too; a recording scheduler sees the same calls
    }

    @inlinable
    func receive(subscription: any Subscription) {
        _ = scheduler.now
        let verdict: SubscriptionVerdict<Downstream> = lock.withLock {
            guard upstream == nil, completion == nil, let downstream else { return .reject }   // Apple's cancels it
            upstream = subscription
            return .accept(downstream)
        }
        guard case .accept(let downstream) = verdict else {
            if case .reject = verdict { subscription.cancel() }
            return
        }
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    /// When the next output goes out: now, or at the end of the current interval.
    @usableFromInline
    enum Due {
        case now
        case at(Context.SchedulerTimeType)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard lock.withLock({ downstream != nil && upstream != nil && completion == nil }) else { return .none }
        let now = scheduler.now
        let due: Due? = lock.withLock {
            guard downstream != nil, completion == nil, demand > .none else { return nil }
            if latest || held == nil { held = input }
            guard !outputScheduled else { return nil }
            outputScheduled = true
            guard let last = lastEmission else { return .now }
            let next = last.advanced(by: interval)
            return now >= next ? .now : .at(next)
        }
        switch due {
        case nil: break
        case .now: scheduler.schedule(options: nil) { [self] in emit() }
        case .at(let date):
            scheduler.schedule(after: date, tolerance: scheduler.minimumTolerance, options: nil) { [self] in emit() }
        }
        return .none
    }

    /// Runs on the scheduler: publishes the held value (if the subscriber wants it), then a
    /// completion that was waiting for it.
    @inlinable
    func emit() {
        // The time of the output is recorded (read from the scheduler) unless the stream ends
        // with it, or nobody is listening any more: Apple's reads the clock exactly then.
        guard let ending = lock.withLock({ downstream == nil ? nil : completion != nil }) else { return }
        let now = ending ? lastEmission : scheduler.now
        guard let release = lock.withLock({ takeOutput(at: now) }) else { return }
        if let value = release.value {
            let more = release.downstream.receive(value)
            if more > .none { lock.withLock { if downstream != nil { demand += more } } }
        }
        if let completion = release.completion { release.downstream.receive(completion: completion) }
    }

    /// What an output hands downstream.
    @usableFromInline
    struct Release {
        @usableFromInline let downstream: Downstream
        @usableFromInline let value: Input?
        @usableFromInline let completion: Subscribers.Completion<Failure>?

        @inlinable
        init(downstream: Downstream, value: Input?, completion: Subscribers.Completion<Failure>?) {
            self.downstream = downstream
            self.value = value
            self.completion = completion
        }
    }

    /// Under the lock: the held value (if there is demand for it) and a waiting completion.
    @inlinable
    func takeOutput(at now: Context.SchedulerTimeType?) -> Release? {
        guard let downstream else { return nil }
        outputScheduled = false
        if let now { lastEmission = now }
        let value = demand > .none ? held : nil
        if value != nil { demand -= 1 }
        held = nil
        if completion != nil {
            self.downstream = nil
            upstream = nil
        }
        return Release(downstream: downstream, value: value, completion: completion)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        guard lock.withLock({ downstream != nil && upstream != nil && self.completion == nil }) else { return }
        _ = scheduler.now
        let waitForOutput: Bool? = lock.withLock {
            guard downstream != nil, self.completion == nil else { return nil }
            self.completion = completion
            return outputScheduled
        }
        guard waitForOutput == false else { return }
        scheduler.schedule(options: nil) { [self] in emit() }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        lock.withLock { if downstream != nil { self.demand += demand } }
    }

    @inlinable
    func cancel() {
        let upstream: (any Subscription)? = lock.withLock {
            guard downstream != nil else { return nil }
            downstream = nil
            held = nil
            defer { self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }

    @usableFromInline var description: String { "Throttle" }

    @usableFromInline var playgroundDescription: Any { description }

    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Publisher {
    /// Publishes either the most-recent or first element published by the upstream publisher in
    /// the specified time interval.
    ///
    /// - Parameters:
    ///   - interval: The interval at which to find and emit either the most recent or the first
    ///     element, expressed in the time system of the scheduler.
    ///   - scheduler: The scheduler on which to publish elements.
    ///   - latest: A Boolean value that indicates whether to publish the most recent element. If
    ///     `false`, the publisher emits the first element received during the interval.
    /// - Returns: A publisher that emits either the most-recent or first element received during
    ///   the specified interval.
    @inlinable
    public func throttle<S: Scheduler>(for interval: S.SchedulerTimeType.Stride, scheduler: S, latest: Bool)
        -> Publishers.Throttle<Self, S>
    {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}
