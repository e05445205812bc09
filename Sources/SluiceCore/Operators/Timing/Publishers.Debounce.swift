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
        public init(upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber through a debouncing subscription.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Debouncer(downstream: subscriber, dueTime: dueTime, scheduler: scheduler, options: options))
        }
    }
}

/// The subscription of `debounce(for:scheduler:options:)`.
final class Debouncer<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let lock = Lock()
    @exclusivity(unchecked) private var downstream: Downstream?
    @exclusivity(unchecked) private var upstream: (any Subscription)?
    @exclusivity(unchecked) private var demand = Subscribers.Demand.none
    @exclusivity(unchecked) private var latest: Input?
    @exclusivity(unchecked) private var generation = 0
    @exclusivity(unchecked) private var timer: (any Cancellable)?
    @exclusivity(unchecked) private var completed = false
    private let dueTime: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.dueTime = dueTime
        self.scheduler = scheduler
        self.options = options
    }

    func receive(subscription: any Subscription) {
        let verdict: SubscriptionVerdict<Downstream> = lock.withLock {
            guard upstream == nil, !completed else { return .reject }
            guard let downstream else { return .ignore }
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

    func receive(_ input: Input) -> Subscribers.Demand {
        let step: (Int, (any Cancellable)?, Downstream)? = lock.withLock {
            guard let downstream, upstream != nil, !completed else { return nil }
            generation += 1
            latest = input
            defer { timer = nil }
            return (generation, timer, downstream)
        }
        guard let (current, previous, downstream) = step else { return .none }
        previous?.cancel()
        let now = scheduler.now
        let tolerance = scheduler.minimumTolerance
        // As Apple's, the timer's action holds the subscriber for as long as the scheduler keeps it.
        let token = scheduler.schedule(after: now.advanced(by: dueTime), interval: dueTime, tolerance: tolerance,
                                       options: options) { [self] in fire(current, to: downstream) }
        let keep = lock.withLock { () -> Bool in
            guard generation == current, self.downstream != nil, !completed else { return false }
            timer = token
            return true
        }
        if !keep { token.cancel() }
        return .none
    }

    /// The timer for value number `current` fired: unless it was cancelled or overtaken, the value
    /// goes to `downstream` if it has demand.
    private func fire(_ current: Int, to downstream: Downstream) {
        let step: ((any Cancellable)?, Downstream?, Input?) = lock.withLock {
            guard generation == current, let value = latest, self.downstream != nil else { return (nil, nil, nil) }
            latest = nil
            defer { timer = nil }
            guard demand > .none else { return (timer, nil, nil) }
            demand -= 1
            return (timer, downstream, value)
        }
        step.0?.cancel()
        guard let downstream = step.1, let value = step.2 else { return }
        let more = downstream.receive(value)
        if more > .none { lock.withLock { demand += more } }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let timer: (any Cancellable)?? = lock.withLock {
            guard downstream != nil, upstream != nil, !completed else { return nil }
            completed = true
            latest = nil
            defer { self.timer = nil }
            return .some(self.timer)
        }
        guard let timer else { return }
        timer?.cancel()
        scheduler.schedule(options: nil) { [self] in
            let downstream: Downstream? = lock.withLock {
                defer {
                    self.downstream = nil
                    upstream = nil
                }
                return self.downstream
            }
            downstream?.receive(completion: completion)
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { if downstream != nil { self.demand += demand } }
    }

    func cancel() {
        let (upstream, timer): ((any Subscription)?, (any Cancellable)?) = lock.withLock {
            guard downstream != nil else { return (nil, nil) }
            downstream = nil
            latest = nil
            defer {
                self.upstream = nil
                self.timer = nil
            }
            return (self.upstream, self.timer)
        }
        timer?.cancel()
        upstream?.cancel()
    }

    var description: String { "Debounce" }

    var playgroundDescription: Any { description }

    var customMirror: Mirror {
        let (downstream, latest, demand) = lock.withLock { (self.downstream, self.latest, self.demand) }
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
    public func debounce<S: Scheduler>(for dueTime: S.SchedulerTimeType.Stride, scheduler: S,
                                       options: S.SchedulerOptions? = nil) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}
