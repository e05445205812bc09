/// What the owner of a ``MergeState`` must do once it has released its lock.
@usableFromInline
package enum MergeAction<Output, Failure: Error> {
    /// Nothing.
    case none
    /// Deliver this value downstream: the caller has become the delivering thread and must report
    /// the demand the downstream returns with ``MergeState/delivered(returning:)``. When
    /// `forward` is set, first request `forward.demand` from every active subscription in
    /// `forward.upstreams`.
    case deliver(Output, forward: MergeForward?)
    /// Request `demand` from every active subscription in `upstreams`.
    case forward(MergeForward)
    /// Request `demand` from the subscription just attached.
    case request(Subscribers.Demand)
    /// Cancel the subscription just attached: the merge no longer wants it.
    case reject
    /// Cancel every active subscription in `upstreams`.
    case cancel(ContiguousArray<UpstreamStatus>)
    /// Cancel every active subscription in `upstreams`, then complete the downstream.
    case complete(Subscribers.Completion<Failure>, cancelling: ContiguousArray<UpstreamStatus>)
}

/// Demand to pass on to the upstreams: a snapshot of the slots and the demand to request from
/// each active one.
@usableFromInline
package struct MergeForward {
    @usableFromInline package let demand: Subscribers.Demand
    @usableFromInline package let upstreams: ContiguousArray<UpstreamStatus>

    @inlinable
    package init(demand: Subscribers.Demand, upstreams: ContiguousArray<UpstreamStatus>) {
        self.demand = demand
        self.upstreams = upstreams
    }
}

/// The state machine of every merge (`Merge` … `Merge8`, `MergeMany`): the upstream slots, the
/// downstream's outstanding demand, the values waiting for delivery and the pending completion.
///
/// A value type with no locking and no calls out: ``MergeEngine`` keeps it behind its lock, calls
/// a transition, and performs the returned ``MergeAction`` once unlocked.
///
/// - Demand: each downstream request (and the demand returned from `receive(_:)`) is forwarded
///   to every active upstream; an upstream that subscribes later is asked for the demand still
///   outstanding. Values that find no demand are queued, in arrival order, until demand comes.
/// - Serialisation: one thread at a time delivers (`isDelivering`); a value arriving meanwhile —
///   from another thread, or re-entrantly from inside the downstream's `receive` — is queued and
///   delivered by that thread when the current `receive` returns.
/// - Completion: `.finished` once every upstream has finished and the queue has drained; the
///   first failure cancels the other upstreams and is delivered after the queued values the
///   downstream has demand for (the rest are dropped).
@usableFromInline
package struct MergeState<Output, Failure: Error> {
    @usableFromInline package var slots: ContiguousArray<UpstreamStatus>
    /// Upstreams that have not finished yet.
    @usableFromInline package var remaining: Int
    /// Downstream demand not yet matched by a value.
    @usableFromInline package var demand = Subscribers.Demand.none
    /// Values waiting for delivery: `queue[queueHead...]`.
    @usableFromInline package var queue = ContiguousArray<Output>()
    @usableFromInline package var queueHead = 0
    /// Whether a thread is delivering to the downstream right now.
    @usableFromInline package var isDelivering = false
    /// The completion to deliver once the queue allows it; once set, no input is accepted.
    @usableFromInline package var completion: Subscribers.Completion<Failure>?
    /// Cancelled or completed: nothing more happens.
    @usableFromInline package var isTerminated = false

    /// A merge of `upstreamCount` upstreams, none subscribed yet.
    @inlinable
    package init(upstreamCount: Int) {
        slots = ContiguousArray(repeating: .awaiting, count: upstreamCount)
        remaining = upstreamCount
    }

    /// The number of values waiting for delivery.
    @inlinable
    package var queuedCount: Int { queue.count - queueHead }

    /// Whether the downstream may still be attached to further upstreams.
    @inlinable
    package var isAcceptingUpstreams: Bool { !isTerminated && completion == nil }

    // MARK: Transitions

    /// The downstream has its subscription: a merge of no upstreams finishes at once.
    @inlinable
    package mutating func subscribed() -> MergeAction<Output, Failure> {
        guard !isTerminated, remaining == 0, completion == nil else { return .none }
        return terminate(with: .finished, cancelling: [])
    }

    /// The upstream at `index` sent its subscription.
    @inlinable
    package mutating func attach(_ subscription: any Subscription, at index: Int) -> MergeAction<Output, Failure> {
        guard isAcceptingUpstreams, slots[index].attach(subscription) else { return .reject }
        let outstanding = demand - queuedCount
        return outstanding > 0 ? .request(outstanding) : .none
    }

    /// The upstream at `index` sent a value.
    @inlinable
    package mutating func receive(_ value: Output, from index: Int) -> MergeAction<Output, Failure> {
        guard !isTerminated, completion == nil else { return .none }
        if slots[index].isTerminal { return .none }
        if isDelivering || demand == .none {
            queue.append(value)
            return .none
        }
        isDelivering = true
        demand -= 1
        return .deliver(value, forward: nil)
    }

    /// The delivering thread's downstream `receive` returned `more`: decides its next step.
    @inlinable
    package mutating func delivered(returning more: Subscribers.Demand) -> MergeAction<Output, Failure> {
        guard !isTerminated else {
            isDelivering = false
            return .none
        }
        let forward = addDemand(more)
        if case .failure = completion, queuedCount == 0 || demand == .none {
            return terminate(with: completion!, cancelling: [])
        }
        if queuedCount > 0 && demand > 0 {
            return .deliver(dequeue(), forward: forward)
        }
        if queuedCount == 0, let completion {
            return terminate(with: completion, cancelling: [])
        }
        isDelivering = false
        return forward.map { .forward($0) } ?? .none
    }

    /// The downstream requested `more`.
    @inlinable
    package mutating func request(_ more: Subscribers.Demand) -> MergeAction<Output, Failure> {
        guard !isTerminated else { return .none }
        let forward = addDemand(more)
        if !isDelivering && queuedCount > 0 {
            isDelivering = true
            return .deliver(dequeue(), forward: forward)
        }
        return forward.map { .forward($0) } ?? .none
    }

    /// The upstream at `index` completed.
    @inlinable
    package mutating func complete(_ completion: Subscribers.Completion<Failure>, from index: Int)
        -> MergeAction<Output, Failure>
    {
        guard !isTerminated, self.completion == nil else { return .none }
        guard slots[index].finish() else { return .none }
        switch completion {
        case .finished:
            remaining -= 1
            guard remaining == 0 else { return .none }
            self.completion = .finished
            slots = []
            if isDelivering || queuedCount > 0 { return .none }
            return terminate(with: .finished, cancelling: [])
        case .failure:
            let others = slots
            slots = []
            if isDelivering {
                self.completion = completion
                return .cancel(others)
            }
            return terminate(with: completion, cancelling: others)
        }
    }

    /// The downstream cancelled.
    @inlinable
    package mutating func cancel() -> MergeAction<Output, Failure> {
        guard !isTerminated else { return .none }
        isTerminated = true
        completion = nil
        clearQueue()
        let upstreams = slots
        slots = []
        return .cancel(upstreams)
    }

    // MARK: Helpers

    /// Adds downstream demand; returns what to forward upstream (nothing when the upstreams
    /// already have unlimited demand or none is left to ask).
    @inlinable
    mutating func addDemand(_ more: Subscribers.Demand) -> MergeForward? {
        guard more != .none else { return nil }
        let wasUnlimited = demand == .unlimited
        demand += more
        guard !wasUnlimited, !slots.isEmpty else { return nil }
        return MergeForward(demand: more, upstreams: slots)
    }

    @inlinable
    mutating func dequeue() -> Output {
        let value = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        demand -= 1
        return value
    }

    @inlinable
    mutating func clearQueue() {
        queue = []
        queueHead = 0
    }

    @inlinable
    mutating func terminate(with completion: Subscribers.Completion<Failure>,
                            cancelling upstreams: ContiguousArray<UpstreamStatus>) -> MergeAction<Output, Failure>
    {
        isTerminated = true
        isDelivering = false
        self.completion = nil
        clearQueue()
        slots = []
        return .complete(completion, cancelling: upstreams)
    }
}
