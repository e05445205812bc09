extension Publishers {
    /// A publisher that performs the specified closures when publisher events occur.
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that executes when the publisher receives the subscription from the
        /// upstream publisher.
        public var receiveSubscription: ((any Subscription) -> Void)?

        /// A closure that executes when the publisher receives a value from the upstream
        /// publisher.
        public var receiveOutput: ((Upstream.Output) -> Void)?

        /// A closure that executes when the upstream publisher finishes normally or terminates
        /// with an error.
        public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?

        /// A closure that executes when the downstream receiver cancels publishing.
        public var receiveCancel: (() -> Void)?

        /// A closure that executes when the publisher receives a request for more elements.
        public var receiveRequest: ((Subscribers.Demand) -> Void)?

        /// Creates a publisher that performs the specified closures when publisher events occur.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - receiveSubscription: A closure that executes when the publisher receives the
        ///     subscription from the upstream publisher.
        ///   - receiveOutput: A closure that executes when the publisher receives a value from the
        ///     upstream publisher.
        ///   - receiveCompletion: A closure that executes when the upstream publisher finishes
        ///     normally or terminates with an error.
        ///   - receiveCancel: A closure that executes when the downstream receiver cancels
        ///     publishing.
        ///   - receiveRequest: A closure that executes when the publisher receives a request for
        ///     more elements.
        @inlinable
        public init(upstream: Upstream,
                    receiveSubscription: ((any Subscription) -> Void)? = nil,
                    receiveOutput: ((Upstream.Output) -> Void)? = nil,
                    receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)? = nil,
                    receiveCancel: (() -> Void)? = nil,
                    receiveRequest: ((Subscribers.Demand) -> Void)? = nil) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.receiveCancel = receiveCancel
            self.receiveRequest = receiveRequest
        }

        /// Attaches the subscriber through a subscription that reports every event.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = EventReporter(
                downstream: subscriber,
                hooks: EventHooks(receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
                                  receiveCompletion: receiveCompletion, receiveCancel: receiveCancel,
                                  receiveRequest: receiveRequest, returnedDemand: receiveRequest),
                name: "HandleEvents")
            upstream.attachSubscriber(inner)
        }
    }
}

/// The closures an ``EventReporter`` calls (`handleEvents` and `print`).
@usableFromInline
struct EventHooks<Input, Failure: Error> {
    @usableFromInline let receiveSubscription: ((any Subscription) -> Void)?
    @usableFromInline let receiveOutput: ((Input) -> Void)?
    @usableFromInline let receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    @usableFromInline let receiveCancel: (() -> Void)?
    @usableFromInline let receiveRequest: ((Subscribers.Demand) -> Void)?
    /// Called with a non-zero demand the downstream returned from `receive(_:)`.
    @usableFromInline let returnedDemand: ((Subscribers.Demand) -> Void)?

    @inlinable
    init(receiveSubscription: ((any Subscription) -> Void)?, receiveOutput: ((Input) -> Void)?,
         receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?, receiveCancel: (() -> Void)?,
         receiveRequest: ((Subscribers.Demand) -> Void)?, returnedDemand: ((Subscribers.Demand) -> Void)?) {
        self.receiveSubscription = receiveSubscription
        self.receiveOutput = receiveOutput
        self.receiveCompletion = receiveCompletion
        self.receiveCancel = receiveCancel
        self.receiveRequest = receiveRequest
        self.returnedDemand = returnedDemand
    }
}

/// The upstream's subscriber and the downstream's subscription of `handleEvents` and `print`:
/// reports each event to its hooks (never under the lock), then forwards it.
///
/// As Apple's:
/// - Every subscription received is reported; the first is attached, any later one cancelled.
///   After a cancel made before any subscription arrived, an arriving subscription is reported
///   but neither attached nor cancelled.
/// - Values (and the completion) that arrive before the subscription are reported and passed on;
///   the demand the downstream returns for a value is reported as a request.
/// - Demand requested before the subscription arrives is reported at once and requested from the
///   upstream when it arrives. A request of `.none` is reported and forwarded, not trapped.
/// - Once cancelled or completed nothing more is reported (and, Sluice's rule, the downstream is
///   released, so nothing more is passed on).
/// - The mirror has no children.
@usableFromInline
final class EventReporter<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    @usableFromInline let hooks: EventHooks<Downstream.Input, Downstream.Failure>
    @usableFromInline let name: String
    // Guarded by `lock`:
    @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    /// Demand requested before the subscription arrived.
    @exclusivity(unchecked) @usableFromInline var pendingDemand = Subscribers.Demand.none
    /// Cancelled before any subscription arrived.
    @exclusivity(unchecked) @usableFromInline var cancelledEarly = false
    /// Leads `request(_:)`, which arrives through `any Subscription` and so runs unspecialised, into
    /// the code specialised where `init` ran (as ``SubjectSubscription/requestEntry`` does): under
    /// one-at-a-time demand, every value would otherwise look up generic metadata.
    @usableFromInline let requestEntry: (EventReporter, Subscribers.Demand) -> Void

    @inlinable
    init(downstream: Downstream, hooks: EventHooks<Downstream.Input, Downstream.Failure>, name: String) {
        self.downstream = downstream
        self.hooks = hooks
        self.name = name
        requestEntry = { $0.requestSpecialised($1) }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        hooks.receiveSubscription?(subscription)
        let (target, pending, ignore) = lock.withLock { () -> (Downstream?, Subscribers.Demand, Bool) in
            if cancelledEarly { return (nil, .none, true) }
            guard let downstream, upstream.attach(subscription) else { return (nil, .none, false) }
            defer { pendingDemand = .none }
            return (downstream, pendingDemand, false)
        }
        if ignore { return }
        guard let target else {
            subscription.cancel()
            return
        }
        if pending != .none { subscription.request(pending) }
        target.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        guard let target = lock.withLock({ downstream }) else { return .none }
        hooks.receiveOutput?(input)
        let demand = target.receive(input)
        if demand != .none, let returned = hooks.returnedDemand { returned(demand) }
        return demand
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        let target = lock.withLock { () -> Downstream? in
            guard downstream != nil, upstream.finish() else { return nil }
            defer { downstream = nil }
            return downstream
        }
        guard let target else { return }
        hooks.receiveCompletion?(completion)
        target.receive(completion: completion)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        requestEntry(self, demand)
    }

    /// `request(_:)`, specialised (see ``requestEntry``).
    @inlinable
    func requestSpecialised(_ demand: Subscribers.Demand) {
        let (live, subscription) = lock.withLock { () -> (Bool, (any Subscription)?) in
            guard downstream != nil else { return (false, nil) }
            if let subscription = upstream.subscription { return (true, subscription) }
            pendingDemand += demand
            return (true, nil)
        }
        guard live else { return }
        hooks.receiveRequest?(demand)
        subscription?.request(demand)
    }

    @inlinable
    func cancel() {
        let (live, subscription, released) = lock.withLock { () -> (Bool, (any Subscription)?, Downstream?) in
            guard downstream != nil else { return (false, nil, nil) }
            defer { downstream = nil }
            if upstream.isAwaiting { cancelledEarly = true }
            return (true, upstream.detach(), downstream)
        }
        guard live else { return }
        hooks.receiveCancel?()
        subscription?.cancel()
        _ = released
    }

    @usableFromInline var description: String { name }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

extension Publisher {
    /// Performs the specified closures when publisher events occur.
    ///
    /// Each closure runs before the event is passed on. All are optional.
    ///
    /// - Parameters:
    ///   - receiveSubscription: An optional closure that executes when the publisher receives
    ///     the subscription from the upstream publisher. This value defaults to `nil`.
    ///   - receiveOutput: An optional closure that executes when the publisher receives a value
    ///     from the upstream publisher. This value defaults to `nil`.
    ///   - receiveCompletion: An optional closure that executes when the upstream publisher
    ///     finishes normally or terminates with an error. This value defaults to `nil`.
    ///   - receiveCancel: An optional closure that executes when the downstream receiver cancels
    ///     publishing. This value defaults to `nil`.
    ///   - receiveRequest: An optional closure that executes when the publisher receives a request
    ///     for more elements. This value defaults to `nil`.
    /// - Returns: A publisher that performs the specified closures when publisher events occur.
    @inlinable
    public func handleEvents(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(upstream: self, receiveSubscription: receiveSubscription,
                                receiveOutput: receiveOutput, receiveCompletion: receiveCompletion,
                                receiveCancel: receiveCancel, receiveRequest: receiveRequest)
    }
}
