extension Publishers {
    /// A publisher that buffers elements from an upstream publisher.
    ///
    /// The buffer holds up to ``size`` elements the downstream has not asked for yet and hands
    /// them out, oldest first, as the downstream requests them.
    ///
    /// - Demand: with ``PrefetchStrategy/keepFull`` the buffer asks the upstream for `size`
    ///   elements on subscription and for one more each time an element leaves for the downstream;
    ///   with ``PrefetchStrategy/byRequest`` it asks for `.unlimited` on subscription (what Apple's
    ///   Combine does). The downstream's own requests are never forwarded: they are served from
    ///   the buffer.
    /// - Full buffer: an element arriving while `size` elements wait is handled by ``whenFull``:
    ///   dropped, replacing the oldest, or ending the stream with a custom error (the upstream is
    ///   cancelled and the buffered elements are discarded).
    /// - Completion: `.finished` from the upstream reaches the downstream after every buffered
    ///   element has been delivered; a `.failure` is delivered at once and the buffered elements
    ///   are discarded.
    /// - Threading: deliveries to the downstream are serialised (never two at once, never
    ///   reordered), whichever thread the upstream sends on and the downstream requests from.
    ///   `description` of the subscription is "Buffer".
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
            upstream.receive(subscriber: BufferSubscription<Output, Failure, S>(
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

// MARK: - State machine

/// What a full buffer does with an arriving element (``Publishers/BufferingStrategy`` without
/// its closure, which the subscription keeps).
@usableFromInline
enum BufferOverflow {
    case dropNewest, dropOldest, fail
}

/// The buffer's state: the queued elements, the downstream's demand, who is delivering, and the
/// completion waiting its turn. A value type whose transitions say what to do next; the owner
/// (``BufferSubscription``) keeps it behind its lock and performs the steps once unlocked.
///
/// One thread at a time delivers (`isDelivering`): it loops on ``delivered(more:)`` until the
/// state says `.idle`. Anything arriving meanwhile — a value, a request, a completion — only
/// changes the state, and the delivering thread picks it up, in order.
@usableFromInline
struct BufferState<Output, Failure: Error> {
    /// The next thing to hand the downstream.
    @usableFromInline
    enum Step {
        case value(Output)
        case completion(Subscribers.Completion<Failure>)
        case idle
    }

    /// What became of a value from the upstream.
    @usableFromInline
    enum Arrival {
        /// Deliver it now, on this thread (which now owns the delivery).
        case deliver(Output)
        /// Buffered (possibly in place of the oldest element).
        case queued
        /// Discarded: the buffer was full (`.dropNewest`) or the stream is over.
        case dropped
        /// The buffer was full and the strategy is `.customError`: cancel the upstream and fail.
        case overflow
    }

    @usableFromInline let capacity: Int
    @usableFromInline let overflow: BufferOverflow
    /// `.keepFull`: every element handed out is owed back to the upstream as a request for one.
    @usableFromInline let refills: Bool
    /// Buffered elements: `items[head...]`.
    @usableFromInline var items = ContiguousArray<Output>()
    @usableFromInline var head = 0
    @usableFromInline var demand = Subscribers.Demand.none
    /// A thread is delivering (or the downstream is still inside `receive(subscription:)`).
    @usableFromInline var isDelivering = true
    /// No more values are accepted from the upstream: it completed, overflowed, or was cancelled.
    @usableFromInline var upstreamDone = false
    /// A completion waiting for the delivery in progress (a failure) or for the buffer to drain
    /// (`.finished`).
    @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
    /// Completed or cancelled: nothing more reaches the downstream.
    @usableFromInline var isTerminal = false
    /// Elements handed out with `refills` set, not yet requested back from the upstream.
    @usableFromInline var owedRefills = 0

    @inlinable
    init(capacity: Int, overflow: BufferOverflow, refills: Bool) {
        self.capacity = max(capacity, 0)
        self.overflow = overflow
        self.refills = refills
    }

    /// How many elements wait in the buffer.
    @inlinable
    var count: Int { items.count - head }

    /// The downstream's `receive(subscription:)` returned: the initial "delivery" ends.
    @inlinable
    mutating func subscriptionDelivered() -> Step {
        nextStep()
    }

    /// A value from the upstream.
    @inlinable
    mutating func receive(_ value: Output) -> Arrival {
        guard !isTerminal, !upstreamDone else { return .dropped }
        if !isDelivering, demand > 0, count == 0 {
            demand -= 1
            isDelivering = true
            handedOut()
            return .deliver(value)
        }
        if count < capacity {
            items.append(value)
            return .queued
        }
        switch overflow {
        case .dropNewest:
            return .dropped
        case .dropOldest:
            guard count > 0 else { return .dropped }
            _ = popFirst()
            items.append(value)
            return .queued
        case .fail:
            upstreamDone = true
            return .overflow
        }
    }

    /// The upstream completed.
    @inlinable
    mutating func receive(completion: Subscribers.Completion<Failure>) -> Step {
        guard !upstreamDone else { return .idle }
        upstreamDone = true
        return finish(with: completion)
    }

    /// The buffer overflowed with `.customError`: fail with `error` (the upstream is already
    /// cancelled).
    @inlinable
    mutating func fail(_ error: Failure) -> Step {
        upstreamDone = true
        return finish(with: .failure(error))
    }

    /// The downstream requested more.
    @inlinable
    mutating func request(_ more: Subscribers.Demand) -> Step {
        guard !isTerminal else { return .idle }
        demand += more
        if isDelivering { return .idle }
        isDelivering = true
        return nextStep()
    }

    /// The value of a `.value` step was delivered and the downstream returned `more`.
    @inlinable
    mutating func delivered(more: Subscribers.Demand) -> Step {
        if !isTerminal { demand += more }
        return nextStep()
    }

    /// The downstream cancelled: forget everything.
    @inlinable
    mutating func cancel() {
        isTerminal = true
        upstreamDone = true
        pendingCompletion = nil
        items = []
        head = 0
    }

    /// Takes the refills owed to the upstream.
    @inlinable
    mutating func takeRefills() -> Int {
        defer { owedRefills = 0 }
        return owedRefills
    }

    @inlinable
    mutating func finish(with completion: Subscribers.Completion<Failure>) -> Step {
        guard !isTerminal else { return .idle }
        if case .failure = completion {
            items = []
            head = 0
        }
        pendingCompletion = completion
        if isDelivering { return .idle }
        isDelivering = true
        return nextStep()
    }

    /// Decides the next step of the delivery in progress (`isDelivering` is set); clears
    /// `isDelivering` when there is nothing to do.
    @inlinable
    mutating func nextStep() -> Step {
        if isTerminal {
            isDelivering = false
            return .idle
        }
        if let completion = pendingCompletion, case .failure = completion {
            return terminate(with: completion)
        }
        if count > 0, demand > 0 {
            demand -= 1
            handedOut()
            return .value(popFirst())
        }
        if count == 0, let completion = pendingCompletion {
            return terminate(with: completion)
        }
        isDelivering = false
        return .idle
    }

    @inlinable
    mutating func terminate(with completion: Subscribers.Completion<Failure>) -> Step {
        isTerminal = true
        isDelivering = false
        upstreamDone = true
        pendingCompletion = nil
        items = []
        head = 0
        return .completion(completion)
    }

    @inlinable
    mutating func handedOut() {
        if refills && !upstreamDone { owedRefills += 1 }
    }

    @inlinable
    mutating func popFirst() -> Output {
        let value = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return value
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

    @usableFromInline let lock = Lock()
    // Guarded by `lock`:
    @usableFromInline var state: BufferState<Output, Failure>
    @usableFromInline var downstream: Downstream?
    @usableFromInline var upstream = UpstreamStatus()
    // Immutable:
    @usableFromInline let initialRequest: Subscribers.Demand?
    @usableFromInline let makeError: (() -> Failure)?

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
        state = BufferState(capacity: size, overflow: overflow, refills: prefetch == .keepFull)
        self.downstream = downstream
    }

    // MARK: Upstream side

    @inlinable
    func receive(subscription: any Subscription) {
        let target = lock.withLock { () -> Downstream? in
            guard let downstream, upstream.attach(subscription) else { return nil }
            return downstream
        }
        guard let target else {
            subscription.cancel()
            return
        }
        target.receive(subscription: self)
        let (step, next) = lock.withLock { locked(state.subscriptionDelivered()) }
        run(step, next)
        requestRefills()
        if let initialRequest, let live = lock.withLock({ upstream.subscription }) {
            live.request(initialRequest)
        }
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
        let (arrival, target) = lock.withLock { (state.receive(input), downstream) }
        switch arrival {
        case .queued, .dropped:
            return .none
        case .overflow:
            overflowed()
            return .none
        case .deliver(let value):
            run(.value(value), target)
            let owed = lock.withLock { state.takeRefills() }
            return owed > 0 ? .max(owed) : .none
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let (step, target) = lock.withLock { () -> (BufferState<Output, Failure>.Step, Downstream?) in
            guard upstream.finish() else { return (.idle, nil) }
            return locked(state.receive(completion: completion))
        }
        run(step, target)
    }

    /// `.customError` on a full buffer: cancel the upstream, then fail with the closure's error.
    @usableFromInline
    func overflowed() {
        let subscription = lock.withLock { upstream.detach() }
        subscription?.cancel()
        guard let makeError else { return }
        let error = makeError()
        let (step, target) = lock.withLock { locked(state.fail(error)) }
        run(step, target)
    }

    // MARK: Downstream side

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (step, target) = lock.withLock { locked(state.request(demand)) }
        run(step, target)
        requestRefills()
    }

    @inlinable
    func cancel() {
        let (subscription, released) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
            state.cancel()
            defer { downstream = nil }
            return (upstream.detach(), downstream)
        }
        subscription?.cancel()
        _ = released  // released here, outside the lock
    }

    // MARK: Delivery

    /// With the lock held: pairs a step with the downstream, releasing both sides on completion.
    @inlinable
    func locked(_ step: BufferState<Output, Failure>.Step) -> (BufferState<Output, Failure>.Step, Downstream?) {
        let target = downstream
        if case .completion = step {
            downstream = nil
            _ = upstream.finish()
        }
        return (step, target)
    }

    /// Performs steps, without the lock, until the state says `.idle`.
    @inlinable
    func run(_ first: BufferState<Output, Failure>.Step, _ firstTarget: Downstream?) {
        var step = first
        var target = firstTarget
        while let current = target {
            switch step {
            case .idle:
                return
            case .completion(let completion):
                current.receive(completion: completion)
                return
            case .value(let value):
                let more = current.receive(value)
                (step, target) = lock.withLock { locked(state.delivered(more: more)) }
            }
        }
    }

    /// Asks the upstream for the elements handed out under `.keepFull`.
    @inlinable
    func requestRefills() {
        let (owed, subscription) = lock.withLock { (state.takeRefills(), upstream.subscription) }
        if owed > 0 { subscription?.request(.max(owed)) }
    }

    /// "Buffer".
    @usableFromInline var description: String { "Buffer" }
    @usableFromInline var customMirror: Mirror {
        let (downstream, buffered) = lock.withLock { (self.downstream, state.count) }
        return Mirror(self, children: ["downstream": downstream as Any, "buffered": buffered])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
