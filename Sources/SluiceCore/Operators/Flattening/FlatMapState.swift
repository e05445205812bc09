/// Names one inner publisher of ``FlatMapState``: the slot it occupies and the slot's generation.
///
/// Slots are reused once their inner has finished; the generation, bumped on every release, makes
/// an identifier that outlived its inner (a misbehaving publisher's late events) match nothing.
@usableFromInline
package struct FlatMapInnerID: Equatable, Sendable {
    @usableFromInline package let slot: Int
    @usableFromInline package let generation: Int

    @inlinable
    package init(slot: Int, generation: Int) {
        self.slot = slot
        self.generation = generation
    }
}

/// What ``FlatMapState`` stores where it has no subscription (``Subscriptions/empty``).
///
/// Subscriptions are kept as plain `any Subscription` next to a flag rather than as optionals:
/// the compiler copies and destroys an `Optional<any Subscription>` (and any enum with such a
/// payload) through the runtime's generic value witnesses, several times the cost of copying the
/// existential itself.
@usableFromInline
let flatMapVacancy: any Subscription & Sendable = EmptySubscription.singleton

/// One slot of ``FlatMapState``'s table of inners.
@usableFromInline
package struct FlatMapInnerSlot {
    /// Bumped each time the slot is released, so that old identifiers no longer match.
    @usableFromInline var generation = 0
    /// An inner occupies the slot.
    @usableFromInline var isLive = false
    /// The inner's subscription has arrived: it is in ``subscription``.
    @usableFromInline var isAttached = false
    /// The next free slot while this one is free (`-1`: none).
    @usableFromInline var nextFree = -1
    /// The inner's subscription once it has arrived; ``flatMapVacancy`` otherwise.
    @usableFromInline var subscription: any Subscription = flatMapVacancy

    @inlinable
    init() {}
}

/// The state machine of `flatMap`: the upstream of publishers, the inner subscriptions, the
/// downstream demand, and the serialised delivery of the inners' values.
///
/// A value type kept behind its owner's lock. Every transition changes the state and returns what
/// the owner must do once the lock is released (deliver, request, cancel, complete); nothing here
/// calls out. Inners are identified by the ``FlatMapInnerID`` that ``addInner()`` hands out.
///
/// - Inners live in a table of slots with a free list: registering, attaching and releasing an
///   inner index an array (no hashing), and once the table has grown to the number of inners alive
///   at once, nothing allocates. Each inner's subscription is stored once and moved out when it
///   ends; transitions return small enums rather than structs of optional subscriptions, because
///   every copy of an `any Subscription` goes through its type's value witnesses.
/// - Demand to inners: while the downstream demand is `.unlimited`, each inner is asked for
///   `.unlimited`; otherwise for `.max(1)` at a time, asking again only once its value has been
///   delivered (or, for a value that waits behind a delivery in progress within the demand, at
///   once: ``Arrival/waitReplenished``). So an inner never has more than one value waiting for
///   downstream demand. When the demand becomes unlimited (requested, or returned from
///   `receive(_:)`), the inners are raised to `.unlimited`.
/// - Serialised delivery: one thread delivers at a time (`isDelivering`). A value that arrives
///   while another is being delivered, or without downstream demand, waits in `buffer` and is
///   delivered in arrival order by the delivering thread, or by `request(_:)`.
/// - Completion: `.finished` once the upstream and every inner have finished and nothing waits;
///   the first failure cancels everything else (an inner's failure leaves the upstream running,
///   as Apple's Combine does), drops what waits, and is the only completion. A completion decided
///   while another thread delivers is handed to that thread.
@usableFromInline
package struct FlatMapState<Output, Failure: Error> {
    /// Where the state stands with the upstream of publishers.
    @usableFromInline
    package enum UpstreamPhase {
        /// No subscription yet.
        case awaiting
        /// Its subscription is in ``upstreamSubscription``.
        case subscribed
        /// Completed, or released.
        case finished
    }

    /// What becomes of a value an inner sent (``receiveInner(_:from:)``).
    @usableFromInline
    package enum Arrival: Equatable {
        /// Deliver it now: the caller holds the delivering role.
        case deliver
        /// It waits (or was dropped, once terminal); the inner is asked for more once it has been
        /// delivered.
        case wait
        /// It waits for a delivery in progress, within the downstream's demand: the inner gets
        /// `.max(1)` back at once, as Apple's Combine, which delivers such a value re-entrantly,
        /// returns it; it is not asked again when the value is delivered.
        case waitReplenished
    }

    /// What the delivering thread does next.
    @usableFromInline
    package enum Next {
        /// Deliver this buffered value, sent by that inner (`replenished`: that inner already got
        /// its `.max(1)` for it).
        case deliver(Output, inner: FlatMapInnerID, replenished: Bool)
        /// Deliver the completion; the downstream must be released.
        case complete(Subscribers.Completion<Failure>)
        /// Nothing to deliver: the thread stops delivering.
        case idle
    }

    /// What to do outside the lock after a completion (upstream's or an inner's).
    @usableFromInline
    package enum Action {
        /// Nothing.
        case none
        /// Ask the upstream subscription (``upstreamToReplenish()``) for one more publisher.
        case requestUpstream
        /// Cancel these subscriptions, then send this completion downstream (and release the
        /// downstream).
        case complete(Subscribers.Completion<Failure>, cancelling: ContiguousArray<any Subscription>)
        /// Cancel these subscriptions; the delivering thread sends the failure.
        case cancel(ContiguousArray<any Subscription>)

        /// The subscriptions this action cancels.
        @inlinable
        package var cancelled: ContiguousArray<any Subscription> {
            switch self {
            case .complete(_, let cancelling): cancelling
            case .cancel(let subscriptions): subscriptions
            case .none, .requestUpstream: []
            }
        }
    }

    /// How many publishers may be subscribed at once.
    @usableFromInline package let maxPublishers: Subscribers.Demand
    @usableFromInline package var upstream = UpstreamPhase.awaiting
    /// The upstream subscription while ``upstream`` is `.subscribed`; ``flatMapVacancy`` otherwise.
    @usableFromInline package var upstreamSubscription: any Subscription = flatMapVacancy
    /// The table of inners; a slot is reused once its inner has finished.
    @usableFromInline package var slots = ContiguousArray<FlatMapInnerSlot>()
    /// The first free slot (`-1`: none); the free slots are chained through `nextFree`.
    @usableFromInline package var firstFree = -1
    /// How many inners have not finished.
    @usableFromInline package var liveInners = 0
    /// The downstream demand not yet used.
    @usableFromInline package var demand = Subscribers.Demand.none
    /// Values waiting for their turn, with the inner that sent each and whether that inner already
    /// got its `.max(1)` for it (``Arrival/waitReplenished``).
    @usableFromInline package var buffer = DeliveryQueue<(value: Output, inner: FlatMapInnerID, replenished: Bool)>()
    /// A thread is inside the downstream's `receive`.
    @usableFromInline package var isDelivering = false
    /// A completion decided during a delivery, for the delivering thread to send.
    @usableFromInline package var pendingCompletion: Subscribers.Completion<Failure>?
    /// Cancelled, or the completion is decided: nothing more is accepted.
    @usableFromInline package var isTerminal = false
    /// The upstream failed and the inners it cancels are being cancelled: another upstream
    /// completion now (re-entrant, from one of those cancels) traps, as in Apple's Combine.
    @usableFromInline package var isCancellingForUpstreamFailure = false

    @inlinable
    package init(maxPublishers: Subscribers.Demand) {
        self.maxPublishers = maxPublishers
    }

    // MARK: Upstream

    /// Accepts the upstream subscription; `false` means the caller must cancel it.
    @inlinable
    package mutating func attachUpstream(_ subscription: any Subscription) -> Bool {
        guard !isTerminal, case .awaiting = upstream else { return false }
        upstream = .subscribed
        upstreamSubscription = subscription
        return true
    }

    /// The upstream subscription to ask for `maxPublishers` publishers once the downstream has its
    /// subscription, unless it has cancelled meanwhile.
    @inlinable
    package func upstreamToRequest() -> (any Subscription)? {
        guard !isTerminal, maxPublishers != .none, case .subscribed = upstream else { return nil }
        return upstreamSubscription
    }

    /// The upstream subscription to ask for one more publisher after ``Action/requestUpstream``;
    /// ``flatMapVacancy`` (which ignores requests) once there is none.
    @inlinable
    package func upstreamToReplenish() -> any Subscription {
        guard !isTerminal, case .subscribed = upstream else { return flatMapVacancy }
        return upstreamSubscription
    }

    /// Registers a new inner publisher; `nil` once terminal (the publisher must be ignored).
    @inlinable
    package mutating func addInner() -> FlatMapInnerID? {
        guard !isTerminal else { return nil }
        liveInners &+= 1
        let slot: Int
        if firstFree >= 0 {
            slot = firstFree
            firstFree = slots[slot].nextFree
        } else {
            slot = slots.count
            slots.append(FlatMapInnerSlot())
        }
        slots[slot].isLive = true
        return FlatMapInnerID(slot: slot, generation: slots[slot].generation)
    }

    /// The upstream completed.
    ///
    /// A failure's action cancels the inners; until ``upstreamFailureCancelled()`` says those
    /// cancels have returned, another upstream completion traps (as in Apple's Combine).
    @inlinable
    package mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> Action {
        if isCancellingForUpstreamFailure { upstreamCompletedWhileCancelling() }
        guard !isTerminal else { return .none }
        switch completion {
        case .finished:
            upstream = .finished
            upstreamSubscription = flatMapVacancy
            return finishIfDone()
        case .failure(let error):
            upstream = .finished
            upstreamSubscription = flatMapVacancy
            let action = fail(error)
            isCancellingForUpstreamFailure = !action.cancelled.isEmpty
            return action
        }
    }

    /// The inners cancelled for an upstream failure have been cancelled.
    @inlinable
    package mutating func upstreamFailureCancelled() {
        isCancellingForUpstreamFailure = false
    }

    @usableFromInline @inline(never)
    func upstreamCompletedWhileCancelling() -> Never {
        preconditionFailure("flatMap: the upstream completed again while its failure was cancelling the inner publishers")
    }

    // MARK: Inners

    /// `true` while the inner named by `id` has not finished (and nothing is terminal).
    @inlinable
    package func isLive(_ id: FlatMapInnerID) -> Bool {
        !isTerminal && id.slot < slots.count && slots[id.slot].isLive && slots[id.slot].generation == id.generation
    }

    /// An inner's subscription arrived: the demand to request from it, or `nil` to cancel it.
    @inlinable
    package mutating func attachInner(_ id: FlatMapInnerID, _ subscription: any Subscription) -> Subscribers.Demand? {
        guard isLive(id), !slots[id.slot].isAttached else { return nil }
        slots[id.slot].isAttached = true
        slots[id.slot].subscription = subscription
        return demand == .unlimited ? .unlimited : .max(1)
    }

    /// The subscription of a live inner, if it has arrived.
    @inlinable
    package func subscription(of id: FlatMapInnerID) -> (any Subscription)? {
        guard isLive(id), slots[id.slot].isAttached else { return nil }
        return slots[id.slot].subscription
    }

    /// An inner sent a value: ``Arrival/deliver`` when the caller must deliver it now (it then
    /// holds the delivering role); otherwise the value was queued, or dropped once terminal.
    @inlinable
    package mutating func receiveInner(_ value: Output, from id: FlatMapInnerID) -> Arrival {
        guard !isTerminal else { return .wait }
        if isDelivering || demand == .none || !buffer.isEmpty {
            return enqueue(value, from: id)
        }
        demand -= 1
        isDelivering = true
        return .deliver
    }

    /// Queues a value that cannot be delivered now. Within the limited demand (behind a delivery
    /// in progress), its inner is replenished at once.
    @inlinable
    mutating func enqueue(_ value: Output, from id: FlatMapInnerID) -> Arrival {
        let replenished = demand != .unlimited && demand > buffer.count
        buffer.append((value, id, replenished))
        return replenished ? .waitReplenished : .wait
    }

    /// A value from inner `id` was delivered and the downstream returned `more`. Returns whether
    /// that inner should be asked for one more value (limited demand, unless it was already
    /// `replenished`; see ``subscription(of:)``), the inner subscriptions to raise to `.unlimited`
    /// when `more` just made the demand unlimited, and what the delivering thread does next.
    @inlinable
    package mutating func delivered(adding more: Subscribers.Demand, from id: FlatMapInnerID,
                                    replenished: Bool = false)
        -> (replenish: Bool, raise: ContiguousArray<any Subscription>?, next: Next)
    {
        var replenish = false
        var raise: ContiguousArray<any Subscription>?
        if demand != .unlimited {
            demand += more
            if !isTerminal {
                if demand == .unlimited {
                    raise = attachedSubscriptions()
                } else {
                    replenish = !replenished && isLive(id)
                }
            }
        }
        return (replenish, raise, next())
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
        if !buffer.isEmpty, demand > 0, let (value, inner, replenished) = buffer.popFirst() {
            demand -= 1
            return .deliver(value, inner: inner, replenished: replenished)
        }
        isDelivering = false
        if liveInners == 0, buffer.isEmpty, case .finished = upstream {
            isTerminal = true
            return .complete(.finished)
        }
        return .idle
    }

    /// An inner completed. Returns what to do, and the inner's subscription (or
    /// ``flatMapVacancy``), now released by the state, for the caller to drop outside the lock.
    ///
    /// As in Apple's Combine: a failure cancels the other inners but not the upstream (which is
    /// let go, left running); an inner that finishes again (a misbehaving publisher) asks the
    /// upstream for one more publisher again, while `maxPublishers` is limited.
    @inlinable
    package mutating func innerCompleted(_ id: FlatMapInnerID, _ completion: Subscribers.Completion<Failure>)
        -> (action: Action, released: any Subscription)
    {
        guard isLive(id) else { return (completedAgain(completion), flatMapVacancy) }
        let released = release(id.slot)
        switch completion {
        case .finished:
            let action = finishIfDone()
            if case .none = action, maxPublishers != .unlimited, case .subscribed = upstream {
                return (.requestUpstream, released)
            }
            return (action, released)
        case .failure(let error):
            return (fail(error, cancellingUpstream: false), released)
        }
    }

    /// A completion from an inner that has already completed (identifiers name live inners until
    /// they complete, or everything ends).
    @inlinable
    func completedAgain(_ completion: Subscribers.Completion<Failure>) -> Action {
        guard !isTerminal, case .finished = completion, maxPublishers != .unlimited,
              case .subscribed = upstream else { return .none }
        return .requestUpstream
    }

    // MARK: Downstream

    /// The downstream requested `more`. Returns the inner subscriptions to raise to `.unlimited`
    /// (when the demand just became unlimited) and, if a waiting value can go now, that value:
    /// the caller then holds the delivering role.
    @inlinable
    package mutating func request(_ more: Subscribers.Demand)
        -> (raise: ContiguousArray<any Subscription>,
            start: (value: Output, inner: FlatMapInnerID, replenished: Bool)?)
    {
        guard !isTerminal else { return ([], nil) }
        let wasUnlimited = demand == .unlimited
        demand += more
        var raise = ContiguousArray<any Subscription>()
        if !wasUnlimited, demand == .unlimited {
            raise = attachedSubscriptions()
        }
        guard !isDelivering, let first = buffer.popFirst() else { return (raise, nil) }
        demand -= 1
        isDelivering = true
        return (raise, (first.value, first.inner, first.replenished))
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

    /// Frees a live inner's slot; returns its subscription (or ``flatMapVacancy``).
    @inlinable
    mutating func release(_ slot: Int) -> any Subscription {
        var subscription: any Subscription = flatMapVacancy
        swap(&subscription, &slots[slot].subscription)
        slots[slot].isLive = false
        slots[slot].isAttached = false
        slots[slot].generation &+= 1
        slots[slot].nextFree = firstFree
        firstFree = slot
        liveInners &-= 1
        return subscription
    }

    /// The subscriptions of the inners that have one.
    @inlinable
    func attachedSubscriptions() -> ContiguousArray<any Subscription> {
        var subscriptions = ContiguousArray<any Subscription>()
        for index in slots.indices where slots[index].isLive && slots[index].isAttached {
            subscriptions.append(slots[index].subscription)
        }
        return subscriptions
    }

    /// Finishes when the upstream and every inner have finished and nothing waits or is delivering.
    @inlinable
    mutating func finishIfDone() -> Action {
        guard !isDelivering, liveInners == 0, buffer.isEmpty, case .finished = upstream else { return .none }
        isTerminal = true
        return .complete(.finished, cancelling: [])
    }

    /// Ends with a failure: cancels the rest (the upstream too unless `cancellingUpstream` is
    /// `false`); the delivering thread sends it if there is one.
    @inlinable
    mutating func fail(_ error: Failure, cancellingUpstream: Bool = true) -> Action {
        isTerminal = true
        let cancel = releaseAll(cancellingUpstream: cancellingUpstream)
        if isDelivering {
            pendingCompletion = .failure(error)
            return .cancel(cancel)
        }
        return .complete(.failure(error), cancelling: cancel)
    }

    /// Forgets the upstream, the inners and the waiting values; returns the subscriptions to cancel
    /// (the upstream's only if `cancellingUpstream`).
    @inlinable
    mutating func releaseAll(cancellingUpstream: Bool = true) -> ContiguousArray<any Subscription> {
        // The inners first, then the upstream, as Apple's Combine cancels them.
        var cancel = attachedSubscriptions()
        if cancellingUpstream, case .subscribed = upstream {
            cancel.append(upstreamSubscription)
        }
        upstream = .finished
        upstreamSubscription = flatMapVacancy
        slots = []
        firstFree = -1
        liveInners = 0
        buffer.removeAll()
        return cancel
    }
}
