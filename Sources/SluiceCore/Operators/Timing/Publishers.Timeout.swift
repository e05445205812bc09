extension Publishers {
    /// A publisher that terminates publishing if the upstream publisher exceeds the specified
    /// time interval without producing an element.
    ///
    /// The clock starts when the subscriber is attached and restarts with every value (a repeating
    /// timer on the scheduler, `schedule(after:interval:tolerance:options:_:)`). Values and the
    /// upstream's completion are delivered on the scheduler (`schedule(options:_:)`). When the
    /// time runs out, the upstream is cancelled and the subscriber receives
    /// `.failure(customError())`, or `.finished` when there is no `customError`.
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum time interval the publisher can go without emitting an element.
        public let interval: Context.SchedulerTimeType.Stride

        /// The scheduler on which to deliver events.
        public let scheduler: Context

        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// A closure that executes if the publisher times out; the error it returns terminates
        /// the stream.
        public let customError: (() -> Upstream.Failure)?

        /// Creates a publisher that terminates publishing if the upstream publisher exceeds the
        /// specified time interval without producing an element.
        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?, customError: (() -> Upstream.Failure)?) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Attaches the subscriber through a subscription that keeps the time.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(TimeoutSubscription(downstream: subscriber, interval: interval, scheduler: scheduler,
                                                             options: options, customError: customError))
        }
    }
}

/// The subscription of `timeout(_:scheduler:options:customError:)`.
@usableFromInline
final class TimeoutSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    /// The running timer, or ``NoTimer`` (see there why not an optional).
    @exclusivity(unchecked) @usableFromInline var timer: any Cancellable = NoTimer()
    @exclusivity(unchecked) @usableFromInline var generation = 0
    @exclusivity(unchecked) @usableFromInline var completed = false
    /// Whether values are taken: subscribed, and neither completed nor cancelled (read per element
    /// instead of comparing ``upstream`` with `nil`, a copy of an optional existential).
    @exclusivity(unchecked) @usableFromInline var open = false
    @exclusivity(unchecked) @usableFromInline var requested = false
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let customError: (() -> Failure)?

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
         options: Context.SchedulerOptions?, customError: (() -> Failure)?) {
        self.downstream = downstream
        self.interval = interval
        self.scheduler = scheduler
        self.options = options
        self.customError = customError
    }

    /// Starts the clock again: the timer for the current generation replaces the previous one.
    @inlinable
    func restartTimer() {
        let step: (Int, Downstream)? = lock.withLock {
            guard let downstream, !completed else { return nil }
            generation += 1
            return (generation, downstream)
        }
        guard let (current, downstream) = step else { return }
        let now = scheduler.now
        let tolerance = scheduler.minimumTolerance
        // As Apple's, the timer's action holds the subscriber for as long as the scheduler keeps it.
        var token = scheduler.schedule(after: now.advanced(by: interval), interval: interval, tolerance: tolerance,
                                       options: options) { [self] in timedOut(current, downstream: downstream) }
        lock.withLock {
            guard generation == current, self.downstream != nil, !completed else { return }
            swap(&timer, &token)
        }
        // The previous timer when the new one was kept (`NoTimer` if there was none), else the new one.
        token.cancel()
    }

    /// The timer of generation `current` fired: unless a value, the completion or a cancel came
    /// first, the upstream is cancelled and `downstream` completes.
    @inlinable
    func timedOut(_ current: Int, downstream: Downstream) {
        var timer: any Cancellable = NoTimer()
        let step: (any Subscription)?? = lock.withLock {
            guard generation == current, !completed, self.downstream != nil else { return nil }
            completed = true
            open = false
            self.downstream = nil
            swap(&timer, &self.timer)
            defer { upstream = nil }
            return .some(upstream)
        }
        guard let upstream = step else { return }
        timer.cancel()
        upstream?.cancel()
        downstream.receive(completion: customError.map { .failure($0()) } ?? .finished)
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let verdict: SubscriptionVerdict<Downstream> = lock.withLock {
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
        // As Apple's, it traps: on the immediate scheduler the timer would fire while being set,
        // ending the stream before the subscriber even has its subscription.
        precondition(Context.self != ImmediateScheduler.self, "timeout(_:scheduler:) cannot use ImmediateScheduler: its timer would fire at once")
        restartTimer()
        downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = lock.withLock({ open ? self.downstream : nil }) else { return .none }
        restartTimer()
        scheduler.schedule(options: options) { [self] in
            guard lock.withLock({ self.downstream != nil }) else { return }   // cancelled meanwhile
            let demand = downstream.receive(input)
            if demand > .none, let upstream = lock.withLock({ self.downstream == nil ? nil : upstream }) {
                upstream.request(demand)
            }
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        var timer: any Cancellable = NoTimer()
        let claimed: Downstream? = lock.withLock {
            guard let downstream, open else { return nil }
            completed = true
            open = false
            swap(&timer, &self.timer)
            return downstream
        }
        guard let downstream = claimed else { return }
        timer.cancel()
        // The action holds the subscriber until it runs; a cancel made meanwhile drops the
        // completion, as Apple's `Timeout` does.
        scheduler.schedule(options: options) { [self] in
            let attached: Bool = lock.withLock {
                defer {
                    self.downstream = nil
                    upstream = nil
                }
                return self.downstream != nil
            }
            if attached { downstream.receive(completion: completion) }
        }
    }

    /// Passes the request upstream; the first one restarts the clock, as Apple's does.
    @inlinable
    func request(_ demand: Subscribers.Demand) {
        guard let upstream = lock.withLock({ downstream == nil ? nil : upstream }) else { return }
        let first = lock.withLock { () -> Bool in
            defer { requested = true }
            return !requested
        }
        if first { restartTimer() }
        upstream.request(demand)
    }

    @inlinable
    func cancel() {
        var timer: any Cancellable = NoTimer()
        let upstream: (any Subscription)? = lock.withLock {
            guard downstream != nil else { return nil }
            downstream = nil
            open = false
            swap(&timer, &self.timer)
            defer { self.upstream = nil }
            return self.upstream
        }
        timer.cancel()
        upstream?.cancel()
    }

    @usableFromInline var description: String { "Timeout" }

    @usableFromInline var playgroundDescription: Any { description }

    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Publisher {
    /// Terminates publishing if the upstream publisher exceeds the specified time interval without
    /// producing an element.
    ///
    /// If `customError` is `nil`, the publisher completes normally when it times out; otherwise
    /// it fails with the error the closure returns.
    ///
    /// - Parameters:
    ///   - interval: The maximum time interval the publisher can go without emitting an element,
    ///     expressed in the time system of the scheduler.
    ///   - scheduler: The scheduler to deliver events on.
    ///   - options: Scheduler options that customize the delivery of elements.
    ///   - customError: A closure that executes if the publisher times out.
    /// - Returns: A publisher that terminates if the specified interval elapses with no events
    ///   received from the upstream publisher.
    @inlinable
    public func timeout<S: Scheduler>(_ interval: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil,
                                      customError: (() -> Failure)? = nil) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(upstream: self, interval: interval, scheduler: scheduler, options: options, customError: customError)
    }
}
