extension Publishers {
    /// A publisher that buffers and periodically publishes its items.
    ///
    /// A repeating timer on the scheduler closes the current group every `stride` (an empty group
    /// is not published); with `.byTimeOrCount`, a group also closes when it reaches its count, and
    /// the timer restarts. Closed groups go downstream while the subscriber has demand, and wait
    /// for demand otherwise. When the upstream finishes, the last group (if not empty) is
    /// published, then `.finished`; when it fails, the failure is forwarded and the collected
    /// values are dropped.
    ///
    /// As Apple's does, it delivers everything on the scheduler: a group, the failure and the
    /// finish reach the subscriber from an action the scheduler runs, never from inside the
    /// upstream's `send`. Its demand upstream is Apple's too: under `.byTime`, `.max(1)` for each
    /// `request(_:)` of the subscriber and `.max(1)` more for each value received; under
    /// `.byTimeOrCount`, `.max(count × n)` for a request or a returned demand of `.max(n)`.
    public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: arrays of the upstream's values.
        public typealias Output = [Upstream.Output]

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// The strategy with which to collect and publish elements.
        public let strategy: TimeGroupingStrategy<Context>

        /// Scheduler options to use for the strategy.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that buffers and periodically publishes its items.
        @inlinable
        public init(upstream: Upstream, strategy: TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.strategy = strategy
            self.options = options
        }

        /// Attaches the subscriber through a collecting subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let (scheduler, stride, count): (Context, Context.SchedulerTimeType.Stride, Int?) = switch strategy {
            case .byTime(let scheduler, let stride): (scheduler, stride, nil)
            case .byTimeOrCount(let scheduler, let stride, let count): (scheduler, stride, count)
            }
            upstream.attachSubscriber(TimeGrouper<Upstream.Output, S, Context>(
                downstream: subscriber, scheduler: scheduler, stride: stride, count: count, options: options))
        }
    }
}

/// The subscription of `collect(_:options:)` with a time-grouping strategy.
@usableFromInline
final class TimeGrouper<Element, Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == [Element] {
    @usableFromInline typealias Input = Element
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    @exclusivity(unchecked) @usableFromInline var group: [Element] = []
    @exclusivity(unchecked) @usableFromInline var ready: [[Element]] = []
    @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
    @exclusivity(unchecked) @usableFromInline var finished = false
    @exclusivity(unchecked) @usableFromInline var delivering = false
    @exclusivity(unchecked) @usableFromInline var timer: (any Cancellable)?
    @exclusivity(unchecked) @usableFromInline var generation = 0
    @usableFromInline let scheduler: Context
    @usableFromInline let stride: Context.SchedulerTimeType.Stride
    @usableFromInline let count: Int?
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(downstream: Downstream, scheduler: Context, stride: Context.SchedulerTimeType.Stride, count: Int?,
         options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.scheduler = scheduler
        self.stride = stride
        self.count = count
        self.options = options
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let downstream: Downstream? = lock.withLock {
            guard upstream == nil, let downstream = self.downstream else { return nil }
            upstream = subscription
            return downstream
        }
        guard let downstream else {
            subscription.cancel()
            return
        }
        startTimer()
        downstream.receive(subscription: self)
    }

    /// Starts (or restarts) the repeating timer that closes groups.
    @inlinable
    func startTimer() {
        let current: Int? = lock.withLock {
            guard downstream != nil, !finished else { return nil }
            generation += 1
            return generation
        }
        guard let current else { return }
        let token = scheduler.schedule(after: scheduler.now.advanced(by: stride), interval: stride,
                                       tolerance: scheduler.minimumTolerance, options: options) { [self] in
            closeGroup(ifGeneration: current)
        }
        let previous: (any Cancellable)?? = lock.withLock {
            guard generation == current, downstream != nil, !finished else { return nil }
            defer { timer = token }
            return .some(timer)
        }
        switch previous {
        case nil: token.cancel()
        case .some(let old): old?.cancel()
        }
    }

    /// The timer's action, on the scheduler: closes the current group and delivers what demand
    /// allows.
    @inlinable
    func closeGroup(ifGeneration current: Int) {
        let closed: Bool = lock.withLock {
            guard generation == current, downstream != nil, !group.isEmpty else { return false }
            ready.append(group)
            group = []
            return true
        }
        if closed { drain() }
    }

    /// Runs `drain` as an action of the scheduler.
    @inlinable
    func scheduleDrain() {
        scheduler.schedule(options: options) { [self] in drain() }
    }

    @inlinable
    func receive(_ input: Element) -> Subscribers.Demand {
        let full: Bool? = lock.withLock {
            guard downstream != nil, !finished else { return nil }
            group.append(input)
            guard let count, group.count >= count else { return false }
            ready.append(group)
            group = []
            return true
        }
        guard let full else { return .none }
        if full {
            startTimer()
            scheduleDrain()
        }
        // `.byTime` asks for the next value as each one arrives; `.byTimeOrCount` asks by request.
        return count == nil ? .max(1) : .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let timer: (any Cancellable)?? = lock.withLock {
            guard downstream != nil, !finished else { return nil }
            finished = true
            pendingCompletion = completion
            if case .failure = completion {
                group = []
                ready = []
            } else if !group.isEmpty {
                ready.append(group)
                group = []
            }
            defer { self.timer = nil }
            return .some(self.timer)
        }
        guard let timer else { return }
        timer?.cancel()
        scheduleDrain()
    }

    @exclusivity(unchecked) @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?

    /// What `drain` does next, decided under the lock.
    @usableFromInline
    enum Step {
        case group(Downstream, [Element])
        case finish(Downstream, Subscribers.Completion<Failure>)
        case stop
    }

    /// Sends ready groups while there is demand, then the completion once they are all out. Runs
    /// on the scheduler only; one call delivers at a time, others leave their work to it.
    @inlinable
    func drain() {
        while true {
            let step: Step = lock.withLock {
                guard let downstream, !delivering else { return .stop }
                if !ready.isEmpty, demand > .none {
                    demand -= 1
                    delivering = true
                    return .group(downstream, ready.removeFirst())
                }
                if ready.isEmpty, finished, let completion = pendingCompletion {
                    self.downstream = nil
                    upstream = nil
                    return .finish(downstream, completion)
                }
                return .stop
            }
            switch step {
            case .stop: return
            case .finish(let downstream, let completion):
                downstream.receive(completion: completion)
                return
            case .group(let downstream, let values):
                let more = downstream.receive(values)
                let subscription: (any Subscription)? = lock.withLock {
                    delivering = false
                    guard self.downstream != nil, more != .none else { return nil }
                    demand += more
                    return count == nil || finished ? nil : upstream
                }
                if let subscription, let count { subscription.request(more * count) }
            }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        // `.byTime` asks `.max(1)` for any request; `.byTimeOrCount`, `count` values per group.
        var upstreamDemand = Subscribers.Demand.max(1)
        if let count { upstreamDemand = demand * count }
        let (subscription, waiting): ((any Subscription)?, Bool) = lock.withLock {
            guard downstream != nil else { return (nil, false) }
            self.demand += demand
            return (finished ? nil : upstream, !ready.isEmpty)
        }
        subscription?.request(upstreamDemand)
        if waiting { scheduleDrain() }
    }

    @inlinable
    func cancel() {
        let (upstream, timer): ((any Subscription)?, (any Cancellable)?) = lock.withLock {
            guard downstream != nil else { return (nil, nil) }
            downstream = nil
            group = []
            ready = []
            defer {
                self.upstream = nil
                self.timer = nil
            }
            return (self.upstream, self.timer)
        }
        timer?.cancel()
        upstream?.cancel()
    }

    @usableFromInline var description: String { "CollectByTime" }

    @usableFromInline var playgroundDescription: Any { description }

    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Publisher {
    /// Collects elements by a given time-grouping strategy, and emits a single array of the
    /// collection.
    ///
    /// If the upstream publisher finishes before filling the buffer, this publisher sends an
    /// array of all the items it has received; if it fails, this publisher forwards the error
    /// instead of sending its output.
    ///
    /// - Parameters:
    ///   - strategy: The timing group strategy used by the operator to collect and publish
    ///     elements.
    ///   - options: Scheduler options to use for the strategy.
    /// - Returns: A publisher that collects elements by a given strategy, and emits a single array
    ///   of the collection.
    @inlinable
    public func collect<S: Scheduler>(_ strategy: Publishers.TimeGroupingStrategy<S>, options: S.SchedulerOptions? = nil)
        -> Publishers.CollectByTime<Self, S>
    {
        Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
    }
}
