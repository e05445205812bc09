/// The state machine of `flatMap`: the upstream of publishers, the inner subscriptions, the
/// downstream demand, and the serialised delivery of the inners' values.
///
/// A value type kept behind its owner's lock. Every transition changes the state and returns what
/// the owner must do once the lock is released (deliver, request, cancel, complete); nothing here
/// calls out. Inners are identified by the `Int` that ``addInner()`` hands out.
///
/// - Demand to inners: while the downstream demand is `.unlimited`, each inner is asked for
///   `.unlimited`; otherwise for `.max(1)` at a time, asking again only once its value has been
///   delivered. So an inner never has more than one value waiting for downstream demand.
/// - Serialised delivery: one thread delivers at a time (`isDelivering`). A value that arrives
///   while another is being delivered, or without downstream demand, waits in `buffer` and is
///   delivered in arrival order by the delivering thread, or by `request(_:)`.
/// - Completion: `.finished` once the upstream and every inner have finished and nothing waits;
///   the first failure (upstream or inner) cancels everything else, drops what waits, and is the
///   only completion. A completion decided while another thread delivers is handed to that thread.
@usableFromInline
package struct FlatMapState<Output, Failure: Error> {
    /// Where the state stands with the upstream of publishers.
    @usableFromInline
    package enum UpstreamPhase {
        case awaiting
        case subscribed(any Subscription)
        case finished
    }

    /// What the delivering thread does next.
    @usableFromInline
    package enum Next {
        /// Deliver this buffered value, sent by that inner.
        case deliver(Output, inner: Int)
        /// Deliver the completion; the downstream must be released.
        case complete(Subscribers.Completion<Failure>)
        /// Nothing to deliver: the thread stops delivering.
        case idle
    }

    /// What to do outside the lock after a completion, a cancel or an ended inner.
    @usableFromInline
    package struct Effects {
        /// Ask this upstream subscription for one more publisher.
        @usableFromInline package var requestUpstream: (any Subscription)?
        /// Cancel these subscriptions.
        @usableFromInline package var cancel: ContiguousArray<any Subscription> = []
        /// Send this completion downstream (and release the downstream).
        @usableFromInline package var completion: Subscribers.Completion<Failure>?

        @inlinable
        package init(requestUpstream: (any Subscription)? = nil, cancel: ContiguousArray<any Subscription> = [],
                     completion: Subscribers.Completion<Failure>? = nil) {
            self.requestUpstream = requestUpstream
            self.cancel = cancel
            self.completion = completion
        }
    }

    /// How many publishers may be subscribed at once.
    @usableFromInline package let maxPublishers: Subscribers.Demand
    @usableFromInline package var upstream = UpstreamPhase.awaiting
    /// The inners that have not finished, with their subscription once it has arrived.
    @usableFromInline package var inners: [Int: (any Subscription)?] = [:]
    @usableFromInline package var nextInner = 0
    /// The downstream demand not yet used.
    @usableFromInline package var demand = Subscribers.Demand.none
    /// Values waiting for their turn, with the inner that sent each.
    @usableFromInline package var buffer = DeliveryQueue<(value: Output, inner: Int)>()
    /// A thread is inside the downstream's `receive`.
    @usableFromInline package var isDelivering = false
    /// A completion decided during a delivery, for the delivering thread to send.
    @usableFromInline package var pendingCompletion: Subscribers.Completion<Failure>?
    /// Cancelled, or the completion is decided: nothing more is accepted.
    @usableFromInline package var isTerminal = false

    @inlinable
    package init(maxPublishers: Subscribers.Demand) {
        self.maxPublishers = maxPublishers
    }

    // MARK: Upstream

    /// Accepts the upstream subscription; `false` means the caller must cancel it.
    @inlinable
    package mutating func attachUpstream(_ subscription: any Subscription) -> Bool {
        guard !isTerminal, case .awaiting = upstream else { return false }
        upstream = .subscribed(subscription)
        return true
    }

    /// The upstream subscription to ask for `maxPublishers` publishers once the downstream has its
    /// subscription, unless it has cancelled meanwhile.
    @inlinable
    package func upstreamToRequest() -> (any Subscription)? {
        guard !isTerminal, maxPublishers != .none, case .subscribed(let subscription) = upstream else { return nil }
        return subscription
    }

    /// Registers a new inner publisher; `nil` once terminal (the publisher must be ignored).
    @inlinable
    package mutating func addInner() -> Int? {
        guard !isTerminal else { return nil }
        let id = nextInner
        nextInner &+= 1
        inners[id] = .some(nil)
        return id
    }

    /// The upstream completed.
    @inlinable
    package mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> Effects {
        guard !isTerminal else { return Effects() }
        switch completion {
        case .finished:
            upstream = .finished
            return finishIfDone()
        case .failure(let error):
            upstream = .finished
            return fail(error)
        }
    }

    // MARK: Inners

    /// An inner's subscription arrived: the demand to request from it, or `nil` to cancel it.
    @inlinable
    package mutating func attachInner(_ id: Int, _ subscription: any Subscription) -> Subscribers.Demand? {
        guard !isTerminal, let entry = inners[id], entry == nil else { return nil }
        inners[id] = subscription
        return demand == .unlimited ? .unlimited : .max(1)
    }

    /// An inner sent a value: `true` when the caller must deliver it now (it then holds the
    /// delivering role); otherwise the value was queued, or dropped once terminal.
    @inlinable
    package mutating func receiveInner(_ value: Output, from id: Int) -> Bool {
        guard !isTerminal else { return false }
        if isDelivering || demand == .none || !buffer.isEmpty {
            buffer.append((value, id))
            return false
        }
        demand -= 1
        isDelivering = true
        return true
    }

    /// A value from inner `id` was delivered and the downstream returned `more`. Returns the
    /// inner's subscription when that inner should be asked for one more value (limited demand),
    /// and what the delivering thread does next.
    @inlinable
    package mutating func delivered(adding more: Subscribers.Demand, from id: Int)
        -> (replenish: (any Subscription)?, next: Next)
    {
        demand += more
        var replenish: (any Subscription)?
        if !isTerminal, demand != .unlimited, let entry = inners[id] {
            replenish = entry
        }
        return (replenish, next())
    }

    /// Decides the delivering thread's next step; leaves the delivering role when there is none.
    @inlinable
    package mutating func next() -> Next {
        if isTerminal {
            isDelivering = false
            if let completion = pendingCompletion {
                pendingCompletion = nil
                return .complete(completion)
            }
            return .idle
        }
        if demand > 0, let (value, inner) = buffer.popFirst() {
            demand -= 1
            return .deliver(value, inner: inner)
        }
        isDelivering = false
        if buffer.isEmpty, inners.isEmpty, case .finished = upstream {
            isTerminal = true
            return .complete(.finished)
        }
        return .idle
    }

    /// An inner completed.
    @inlinable
    package mutating func innerCompleted(_ id: Int, _ completion: Subscribers.Completion<Failure>) -> Effects {
        guard !isTerminal, inners.removeValue(forKey: id) != nil else { return Effects() }
        switch completion {
        case .finished:
            var effects = finishIfDone()
            if effects.completion == nil, maxPublishers != .unlimited, case .subscribed(let subscription) = upstream {
                effects.requestUpstream = subscription
            }
            return effects
        case .failure(let error):
            return fail(error)
        }
    }

    // MARK: Downstream

    /// The downstream requested `more`. Returns the inner subscriptions to raise to `.unlimited`
    /// (when the demand just became unlimited) and, if a waiting value can go now, that value:
    /// the caller then holds the delivering role.
    @inlinable
    package mutating func request(_ more: Subscribers.Demand)
        -> (raise: ContiguousArray<any Subscription>, start: (value: Output, inner: Int)?)
    {
        guard !isTerminal else { return ([], nil) }
        let wasUnlimited = demand == .unlimited
        demand += more
        var raise = ContiguousArray<any Subscription>()
        if !wasUnlimited, demand == .unlimited {
            for case let subscription? in inners.values {
                raise.append(subscription)
            }
        }
        guard !isDelivering, let first = buffer.popFirst() else { return (raise, nil) }
        demand -= 1
        isDelivering = true
        return (raise, first)
    }

    /// The downstream cancelled: everything to cancel.
    @inlinable
    package mutating func cancel() -> ContiguousArray<any Subscription> {
        guard !isTerminal else { return [] }
        isTerminal = true
        pendingCompletion = nil
        return releaseAll()
    }

    // MARK: Helpers

    /// Finishes when the upstream and every inner have finished and nothing waits or is delivering.
    @inlinable
    mutating func finishIfDone() -> Effects {
        guard !isDelivering, buffer.isEmpty, inners.isEmpty, case .finished = upstream else { return Effects() }
        isTerminal = true
        return Effects(completion: .finished)
    }

    /// Ends with a failure: cancels the rest; the delivering thread sends it if there is one.
    @inlinable
    mutating func fail(_ error: Failure) -> Effects {
        isTerminal = true
        let cancel = releaseAll()
        if isDelivering {
            pendingCompletion = .failure(error)
            return Effects(cancel: cancel)
        }
        return Effects(cancel: cancel, completion: .failure(error))
    }

    /// Forgets the upstream, the inners and the waiting values; returns the subscriptions to cancel.
    @inlinable
    mutating func releaseAll() -> ContiguousArray<any Subscription> {
        var cancel = ContiguousArray<any Subscription>()
        if case .subscribed(let subscription) = upstream {
            cancel.append(subscription)
        }
        upstream = .finished
        for case let subscription? in inners.values {
            cancel.append(subscription)
        }
        inners = [:]
        buffer.removeAll()
        return cancel
    }
}
