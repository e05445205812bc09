extension Publishers {
    /// A publisher that delivers elements to its downstream subscriber on a specific scheduler.
    ///
    /// The subscription, requests and cancel pass straight through to the upstream; each value and
    /// the completion are handed to the scheduler (`schedule(options:_:)`), and reach the
    /// subscriber when the scheduler runs them. Demand the subscriber returns from `receive(_:)` is
    /// requested from the upstream on the scheduler. After a cancel, nothing scheduled is
    /// delivered.
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The scheduler the publisher uses to deliver elements.
        public let scheduler: Context

        /// Scheduler options used to customize element delivery.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delivers elements to its downstream subscriber on a specific
        /// scheduler.
        @inlinable
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber through a relay that delivers on the scheduler.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ScheduledRelay(
                downstream: subscriber, timing: NextOpportunity(scheduler: scheduler, options: options)))
        }
    }
}

extension Publisher {
    /// Specifies the scheduler on which to receive elements from the publisher.
    ///
    /// Use it to perform work on a particular scheduler, such as updating a user interface on the
    /// main queue. `receive(on:)` changes where the *downstream* receives values and the
    /// completion; to change where the upstream is subscribed to and asked for values, use
    /// `subscribe(on:options:)`.
    ///
    /// - Parameters:
    ///   - scheduler: The scheduler the publisher uses for element delivery.
    ///   - options: Scheduler options used to customize element delivery.
    /// - Returns: A publisher that delivers elements using the specified scheduler.
    @inlinable
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.ReceiveOn<Self, S> {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}
