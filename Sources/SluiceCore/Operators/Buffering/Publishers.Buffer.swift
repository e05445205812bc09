extension Publishers {
    /// A publisher that buffers elements from an upstream publisher.
    ///
    /// The buffer holds up to ``size`` elements the downstream has not asked for yet and hands
    /// them out, oldest first, as the downstream requests them.
    ///
    /// Behaves as Apple's Combine does, event by event:
    /// - Demand: on subscription the buffer asks the upstream for `size` elements
    ///   (``PrefetchStrategy/keepFull``) or `.unlimited` (``PrefetchStrategy/byRequest``) *before*
    ///   the downstream receives its subscription. Under `.keepFull` every element handed out is
    ///   asked back from the upstream: returned from `receive(_:)` when it went straight through,
    ///   requested (`.max(n)` for the `n` handed out) when a downstream request drained the buffer.
    ///   The downstream's own requests are never forwarded; `request(.none)` is ignored.
    /// - Full buffer: an element arriving while `size` elements wait is handled by ``whenFull``:
    ///   dropped, replacing the oldest, or (`.customError`) cancelling the upstream; that error
    ///   then reaches the downstream at its next request, after the elements it asks for. The
    ///   `.customError` closure must not send to the buffer (Apple's Combine traps: so does this).
    /// - Completion: `.finished` waits until the buffer is empty and the downstream has demand
    ///   (elements arriving after it are still buffered); an upstream `.failure` is delivered at
    ///   once — arriving during a delivery, right after it, the delivery then going on with the
    ///   elements already asked for.
    /// - `cancel()` before the upstream's subscription arrives does nothing.
    /// - `description` of the subscription is "Buffer"; its mirror's children are "values",
    ///   "state", "downstreamDemand" and "terminal".
    public struct Buffer<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of elements to store.
        public let size: Int

        /// The strategy for initially populating the buffer.
        public let prefetch: Publishers.PrefetchStrategy

        /// The action to take when the buffer becomes full.
        public let whenFull: Publishers.BufferingStrategy<Failure>

        /// Creates a publisher that buffers elements received from an upstream publisher.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - size: The maximum number of elements to store.
        ///   - prefetch: The strategy for initially populating the buffer.
        ///   - whenFull: The action to take when the buffer becomes full.
        @inlinable
        public init(upstream: Upstream, size: Int, prefetch: Publishers.PrefetchStrategy,
                    whenFull: Publishers.BufferingStrategy<Failure>)
        {
            self.upstream = upstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        /// Attaches the subscriber through the buffer's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(BufferSubscription<Output, Failure, S>(
                downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull))
        }
    }
}

extension Publisher {
    /// Buffers elements received from an upstream publisher.
    ///
    /// Use `buffer(size:prefetch:whenFull:)` to collect a specific number of elements from an
    /// upstream publisher before republishing them to the downstream subscriber according to the
    /// ``Publishers/BufferingStrategy`` and ``Publishers/PrefetchStrategy`` you specify. If the
    /// upstream finishes while elements are buffered, they are published before the completion.
    ///
    /// - Parameters:
    ///   - size: The maximum number of elements to store.
    ///   - prefetch: The strategy to initially populate the buffer.
    ///   - whenFull: The action to take when the buffer becomes full.
    /// - Returns: A publisher that buffers elements received from an upstream publisher.
    @inlinable
    public func buffer(size: Int, prefetch: Publishers.PrefetchStrategy,
                       whenFull: Publishers.BufferingStrategy<Failure>) -> Publishers.Buffer<Self>
    {
        Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
    }
}

// MARK: - Subscription

/// The buffer's subscription: the upstream's subscriber and the downstream's subscription. A thin
/// shell around ``BufferState``: it locks, asks the state, unlocks, then delivers, requests or
/// cancels — never calling out with the lock held.
@usableFromInline
final class BufferSubscription<Output, Failure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Output
    @usableFromInline typealias State = BufferState<Output, Failure>

    @usableFromInline let lock = Lock()
    // Guarded by `lock`:
    @exclusivity(unchecked) @usableFromInline var state: State
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    /// Kept until the downstream cancels or the stream completes (an overflow cancels it but
    /// keeps it: `.keepFull` still asks it for refills, as Apple's Combine does).
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    // Immutable:
    @usableFromInline let initialRequest: Subscribers.Demand?
    @usableFromInline let refills: Bool
    @usableFromInline let makeError: (() -> Failure)?
    /// Leads `request(_:)`, which arrives through `any Subscription` and so runs unspecialised, into
    /// the code specialised where `init` ran (as ``SubjectSubscription/requestEntry`` does): under
    /// one-at-a-time demand, every value would otherwise look up generic metadata.
    @usableFromInline let requestEntry: (BufferSubscription, Subscribers.Demand) -> Void

    @inlinable
    init(downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
         whenFull: Publishers.BufferingStrategy<Failure>)
    {
        let overflow: BufferOverflow
        switch whenFull {
        case .dropNewest:
            overflow = .dropNewest
            makeError = nil
        case .dropOldest:
            overflow = .dropOldest
            makeError = nil
        case .customError(let make):
            overflow = .fail
            makeError = make
        }
        switch prefetch {
        case .keepFull: initialRequest = size > 0 ? .max(size) : nil
        case .byRequest: initialRequest = .unlimited
        }
        refills = prefetch == .keepFull
        state = State(capacity: size, overflow: overflow)
        self.downstream = downstream
        requestEntry = { $0.requestSpecialised($1) }
    }

    // MARK: Upstream side

    @inlinable
    func receive(subscription: any Subscription) {
        let target = lock.withLock { () -> Downstream? in
            guard state.status == .awaitingSubscription else { return nil }
            state.status = .subscribed
            upstream = subscription
            return downstream
        }
        guard let target else {
            subscription.cancel()
            return
        }
        if let initialRequest { subscription.request(initialRequest) }
        target.receive(subscription: self)
        let (drain, step) = lock.withLock { state.subscriptionDelivered() }
        perform(step)
        if drain { drainRequested() }
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
        switch lock.withLock({ state.receive(input) }) {
        case .stored:
            return .none
        case .overflow:
            let error = makeError!()
            let subscription = lock.withLock { () -> (any Subscription)? in
                state.overflowed(with: error)
                return upstream
            }
            subscription?.cancel()
            return .none
        case .drain:
            let handedOut = drain()
            return refills && handedOut > 0 ? .max(handedOut) : .none
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        perform(lock.withLock { state.receive(completion: completion) })
    }

    // MARK: Downstream side

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        requestEntry(self, demand)
    }

    /// `request(_:)`, specialised (see ``requestEntry``).
    @inlinable
    func requestSpecialised(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        if lock.withLock({ state.request(demand) }) { drainRequested() }
    }

    @inlinable
    func cancel() {
        let (subscription, released) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
            guard state.cancel() else { return (nil, nil) }
            defer {
                downstream = nil
                upstream = nil
            }
            return (upstream, downstream)
        }
        subscription?.cancel()
        _ = released  // released here, outside the lock
    }

    // MARK: Delivery

    /// Drains for a downstream request, then asks the upstream for what left under `.keepFull`.
    @inlinable
    func drainRequested() {
        // Taken first: a completion delivered by the drain releases it, and Apple's Combine still
        // asks it for the refills.
        let subscription = refills ? lock.withLock { upstream } : nil
        let handedOut = drain()
        if handedOut > 0 { subscription?.request(.max(handedOut)) }
    }

    /// Hands out values while the downstream has demand, then the completion whose turn has come.
    /// Runs with `isDraining` set, without the lock; returns how many values it handed out.
    @inlinable
    func drain() -> Int {
        guard let target = lock.withLock({ downstream }) else {
            lock.withLock { state.isDraining = false }
            return 0
        }
        var handedOut = 0
        while true {
            let step = lock.withLock { state.nextStep() }
            switch step {
            case .idle:
                return handedOut
            case .completion:
                perform(step)
                return handedOut
            case .interruption(let completion):
                perform(.completion(completion))
            case .value(let value):
                handedOut += 1
                let more = target.receive(value)
                lock.withLock { state.delivered(more: more) }
            }
        }
    }

    /// Delivers a completion step, releasing the downstream and the upstream first.
    @inlinable
    func perform(_ step: State.Step) {
        guard case .completion(let completion) = step else { return }
        let (target, subscription) = lock.withLock { () -> (Downstream?, (any Subscription)?) in
            defer {
                downstream = nil
                upstream = nil
            }
            return (downstream, upstream)
        }
        _ = subscription  // released here, outside the lock
        target?.receive(completion: completion)
    }

    /// "Buffer".
    @usableFromInline var description: String { "Buffer" }
    @usableFromInline var customMirror: Mirror {
        let (values, status, demand, terminal) = lock.withLock {
            (Array(state.items[state.head...]), state.status, state.demand, state.terminal)
        }
        return Mirror(self, children: [
            "values": values, "state": status, "downstreamDemand": demand, "terminal": terminal as Any,
        ])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
