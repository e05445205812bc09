extension Publishers {
    /// A publisher that receives elements from an upstream publisher on a specific scheduler.
    ///
    /// Subscribing to the upstream, and every request and cancel sent to it, are scheduled on the
    /// scheduler (`schedule(options:_:)`); values and the completion come straight through, on
    /// whatever thread the upstream sends them.
    ///
    /// As Apple's, it does not allow a request to re-enter it while it is passing one to the
    /// upstream on the same thread: a request made from inside the upstream's `request(_:)` — by
    /// the upstream itself, or by the subscriber receiving values the upstream sends from inside
    /// it — stops the program when the scheduler runs it at once (`ImmediateScheduler`). On a
    /// scheduler that runs it later, the request simply waits its turn.
    public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The scheduler the publisher should use to receive elements.
        public let scheduler: Context

        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that receives elements from an upstream publisher on a specific
        /// scheduler.
        @inlinable
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Schedules the subscription to the upstream on the scheduler.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let (upstream, scheduler, options) = (self.upstream, self.scheduler, self.options)
            let inner = SubscribeOnSubscription(downstream: subscriber) { scheduler.schedule(options: options, $0) }
            scheduler.schedule(options: options) { upstream.subscribe(inner) }
        }
    }
}

/// The subscription of `subscribe(on:)`: requests and cancel go to the upstream through the
/// scheduler; events come down directly.
@usableFromInline
final class SubscribeOnSubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    @exclusivity(unchecked) @usableFromInline var completed = false
    /// The thread passing a request to the upstream (see ``requestUpstream(_:_:)``); 0 when none.
    @exclusivity(unchecked) @usableFromInline var requestingThread: UInt = 0
    @usableFromInline let schedule: (@escaping () -> Void) -> Void

    @inlinable
    init(downstream: Downstream, schedule: @escaping (@escaping () -> Void) -> Void) {
        self.downstream = downstream
        self.schedule = schedule
    }

    @inlinable
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
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = lock.withLock({ completed || upstream == nil ? nil : self.downstream }) else { return .none }
        return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let downstream: Downstream? = lock.withLock {
            guard !completed, upstream != nil else { return nil }
            completed = true
            defer { self.downstream = nil }
            return self.downstream
        }
        downstream?.receive(completion: completion)
    }

    // As Apple's, a scheduled request or cancel holds the subscriber until the scheduler runs it.

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        guard let (upstream, downstream) = lock.withLock({ () -> ((any Subscription), Downstream)? in
            guard let downstream, let upstream else { return nil }
            return (upstream, downstream)
        }) else { return }
        schedule { withExtendedLifetime(downstream) { self.requestUpstream(upstream, demand) } }
    }

    /// Passes a scheduled request to the upstream. Apple's operator holds a lock that is not
    /// re-entrant while it does, so a request that comes back on the same thread before the
    /// upstream's `request(_:)` has returned traps there; this one traps the same way (and lets a
    /// request on another thread go ahead rather than wait).
    @usableFromInline
    func requestUpstream(_ upstream: any Subscription, _ demand: Subscribers.Demand) {
        let thread = currentThreadIdentity()
        let claimed = lock.withLock { () -> Bool in
            precondition(requestingThread != thread,
                         "subscribe(on:): request(_:) re-entered from inside the upstream's request(_:) "
                             + "on the same thread (a recursive request, which Combine does not allow)")
            guard requestingThread == 0 else { return false }
            requestingThread = thread
            return true
        }
        upstream.request(demand)
        if claimed { lock.withLock { requestingThread = 0 } }
    }

    @inlinable
    func cancel() {
        guard let (upstream, downstream) = lock.withLock({ () -> ((any Subscription), Downstream)? in
            defer {
                self.downstream = nil
                self.upstream = nil
            }
            guard let downstream, let upstream else { return nil }
            return (upstream, downstream)
        }) else { return }
        schedule { withExtendedLifetime(downstream) { upstream.cancel() } }
    }

    @usableFromInline var description: String { "SubscribeOn" }

    @usableFromInline var playgroundDescription: Any { description }

    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Publisher {
    /// Specifies the scheduler on which to perform subscribe, cancel, and request operations.
    ///
    /// In contrast with `receive(on:options:)`, which affects downstream messages,
    /// `subscribe(on:options:)` changes the execution context of upstream messages: subscribing,
    /// requesting and cancelling happen on the scheduler.
    ///
    /// - Parameters:
    ///   - scheduler: The scheduler used to send messages to upstream publishers.
    ///   - options: Options that customize the delivery of elements.
    /// - Returns: A publisher which performs upstream operations on the specified scheduler.
    @inlinable
    public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.SubscribeOn<Self, S> {
        Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
    }
}
