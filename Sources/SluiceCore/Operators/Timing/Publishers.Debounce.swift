extension Publishers {
    /// A publisher that publishes elements only after a specified time interval elapses between
    /// events.
    ///
    /// It asks the upstream for unlimited values. Each value restarts a timer of `dueTime` on the
    /// scheduler (`schedule(after:interval:tolerance:options:_:)`, cancelled when it fires or when
    /// the next value arrives); when the timer fires, the latest value goes downstream if the
    /// subscriber has demand, and is dropped otherwise. A completion is delivered on the scheduler
    /// (`schedule(options:_:)`) and drops a value still waiting for its time.
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The amount of time the publisher should wait before publishing an element.
        public let dueTime: Context.SchedulerTimeType.Stride

        /// The scheduler on which this publisher delivers elements.
        public let scheduler: Context

        /// Scheduler options that customize this publisher's delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that publishes elements only after a specified time interval
        /// elapses between events.
        @inlinable
        public init(upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber through a debouncing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(Debouncer(downstream: subscriber, dueTime: dueTime, scheduler: scheduler, options: options))
        }
    }
}

/// The subscription of `debounce(for:scheduler:options:)`.
///
/// Its per-element path is inlinable, so that the client specialises it with the rest of the
/// pipeline (no generic metadata per element).
@usableFromInline
final class Debouncer<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    /// Boxed, so that deinit (which runs unspecialised) releases a reference instead of looking up
    /// `Optional` metadata (see ``Boxed``), and a timer's action holds the subscriber with one
    /// retain.
    @exclusivity(unchecked) @usableFromInline var downstream: Boxed<Downstream>?
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
    @exclusivity(unchecked) @usableFromInline var latest: Input?
    @exclusivity(unchecked) @usableFromInline var generation = 0
    /// The running timer, or ``NoTimer`` (see there why not an optional).
    @exclusivity(unchecked) @usableFromInline var timer: any Cancellable = NoTimer()
    @exclusivity(unchecked) @usableFromInline var completed = false
    /// Whether values are taken: subscribed, and neither completed nor cancelled. The per-element
    /// check reads this flag rather than comparing ``upstream`` with `nil`, which copies an
    /// optional existential through its value witnesses.
    @exclusivity(unchecked) @usableFromInline var open = false
    @usableFromInline let dueTime: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions?) {
        self.downstream = Boxed(downstream)
        self.dueTime = dueTime
        self.scheduler = scheduler
        self.options = options
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let verdict: SubscriptionVerdict<Boxed<Downstream>> = lock.withLock {
            guard upstream == nil, !completed else { return .reject }
            guard let downstream else { return .ignore }
            upstream = subscription
            open = true
            return .accept(downstream)
        }
        guard case .accept(let downstream) = verdict else {
            if case .reject = verdict { subscription.cancel() }
            return
        }
        downstream.value.receive(subscription: self)
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        var previous: any Cancellable = NoTimer()
        let step: (Int, Boxed<Downstream>)? = lock.withLock {
            guard open, let downstream else { return nil }
            generation += 1
            latest = input
            swap(&previous, &timer)
            return (generation, downstream)
        }
        guard let (current, downstream) = step else { return .none }
        previous.cancel()
        let now = scheduler.now
        let tolerance = scheduler.minimumTolerance
        // As Apple's, the timer's action holds the subscriber for as long as the scheduler keeps it.
        var token = scheduler.schedule(after: now.advanced(by: dueTime), interval: dueTime, tolerance: tolerance,
                                       options: options) { [self] in fire(current, to: downstream) }
        let keep = lock.withLock { () -> Bool in
            guard generation == current, self.downstream != nil, !completed else { return false }
            swap(&timer, &token)
            return true
        }
        if !keep { token.cancel() }
        return .none
    }

    /// The timer for value number `current` fired: unless it was cancelled or overtaken, the value
    /// goes to `downstream` if it has demand.
    @inlinable
    func fire(_ current: Int, to downstream: Boxed<Downstream>) {
        var timer: any Cancellable = NoTimer()
        let value: Input? = lock.withLock {
            guard generation == current, let value = latest, self.downstream != nil else { return nil }
            latest = nil
            swap(&timer, &self.timer)
            guard demand > .none else { return nil }
            demand -= 1
            return value
        }
        timer.cancel()
        guard let value else { return }
        let more = downstream.value.receive(value)
        if more > .none { lock.withLock { demand += more } }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        var timer: any Cancellable = NoTimer()
        let claimed: Bool = lock.withLock {
            guard open else { return false }
            open = false
            completed = true
            latest = nil
            swap(&timer, &self.timer)
            return true
        }
        guard claimed else { return }
        timer.cancel()
        scheduler.schedule(options: nil) { [self] in
            let downstream: Boxed<Downstream>? = lock.withLock {
                defer {
                    self.downstream = nil
                    upstream = nil
                }
                return self.downstream
            }
            downstream?.value.receive(completion: completion)
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { if downstream != nil { self.demand += demand } }
    }

    @inlinable
    func cancel() {
        var timer: any Cancellable = NoTimer()
        let upstream: (any Subscription)? = lock.withLock {
            guard downstream != nil else { return nil }
            downstream = nil
            open = false
            latest = nil
            swap(&timer, &self.timer)
            defer { self.upstream = nil }
            return self.upstream
        }
        timer.cancel()
        upstream?.cancel()
    }

    @usableFromInline var description: String { "Debounce" }

    @usableFromInline var playgroundDescription: Any { description }

    @usableFromInline var customMirror: Mirror {
        let (downstream, latest, demand) = lock.withLock { (self.downstream?.value, self.latest, self.demand) }
        return Mirror(self, children: [("downstream", downstream as Any), ("downstreamDemand", demand),
                                       ("currentValue", latest as Any)])
    }
}

extension Publisher {
    /// Publishes elements only after a specified time interval elapses between events.
    ///
    /// Use it to wait for a pause in a burst of values — keystrokes in a search field, say — and
    /// publish only the latest one. A value that comes due while the subscriber has no demand is
    /// dropped.
    ///
    /// - Parameters:
    ///   - dueTime: The time the publisher should wait before publishing an element.
    ///   - scheduler: The scheduler on which this publisher delivers elements.
    ///   - options: Scheduler options that customize this publisher's delivery of elements.
    /// - Returns: A publisher that publishes events only after a specified time elapses.
    @inlinable
    public func debounce<S: Scheduler>(for dueTime: S.SchedulerTimeType.Stride, scheduler: S,
                                       options: S.SchedulerOptions? = nil) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}
