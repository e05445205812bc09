// The state machine behind `combineLatest` and `zip` (and their 3- and 4-ary forms): it decides —
// under the owner's lock — what to deliver, request and cancel. Its slots are in
// `CombiningSlots.swift`, its upstream bookkeeping in `CombiningUpstreams.swift`; the thin class that
// performs its decisions is `CombiningSubscription`.

// MARK: State machine

/// What the delivering thread does next, decided under the lock and done outside it.
@usableFromInline
package enum CombiningStep<Output, Failure: Error, Target> {
    /// Nothing (more) to deliver now.
    case idle
    /// Deliver a value, then ask the state for the next step (``CombiningState/delivered(_:_:)``).
    case value(Output, Target)
    /// Deliver the completion; the subscription is over.
    case completion(Subscribers.Completion<Failure>, Target)
}

/// What to do with a subscription an upstream sends.
@usableFromInline
package enum CombiningAttachment: Equatable {
    /// Keep it; request nothing yet.
    case keep
    /// Keep it and request the demand already forwarded to the other upstreams.
    case request(Subscribers.Demand)
    /// Cancel it: the subscription is over, or the upstream had already sent one.
    case cancel
}

/// The state of one `combineLatest`/`zip` subscription: the slots, the downstream demand, the
/// upstream subscriptions, and the serialisation of deliveries.
///
/// Kept behind the owner's lock; no method calls out. Each transition returns the step the
/// calling thread must take once the lock is released, and fills `calls` with what to cancel or
/// request upstream.
///
/// - Outputs: `zip` emits when every slot holds a value (consuming the oldest of each);
///   `combineLatest` when every slot holds a value and one arrived since the last output.
///   `combineLatest`'s output needs downstream demand; without it the values wait in the slots
///   (the latest one replacing the previous). `zip` emits without looking at the demand, as
///   Apple's does: its upstreams are asked for as many values as the downstream wants, so only an
///   upstream that sends beyond its demand makes it exceed the downstream's.
/// - Serialisation: one thread at a time delivers (`isDelivering`). An output that becomes due
///   while another thread delivers waits — in the slots for `zip`, in `queue` as a snapshot for
///   `combineLatest` (a later value would overwrite it otherwise) — and that thread delivers it.
///   The window during which the downstream is inside `receive(subscription:)` counts as a
///   delivery, so nothing reaches it before its subscription.
/// - Demand: every downstream request, and the demand the downstream returns from `receive(_:)`,
///   is requested from every upstream that has not finished (Apple: "passes through any requests
///   to all upstream publishers"). `zip`, as Apple's, makes one exception: while it delivers an
///   output that a value of upstream `i` completed, from inside that upstream's `receive(_:)`,
///   the demand meant for upstream `i` is summed up and returned from that `receive(_:)` when the
///   delivery ends (``CombiningCalls/returned``) instead of being requested.
/// - Ending: a failure cancels the other upstreams and fails once. `zip` finishes as soon as an
///   upstream has finished and its slot is empty (nothing more can be paired), cancelling the
///   others; `combineLatest` finishes when every upstream has finished (after an owed output,
///   if any). Outputs already accepted are delivered before the completion.
@usableFromInline
package struct CombiningState<Storage: CombiningStorage, Failure: Error, Target> {
    @usableFromInline package typealias Step = CombiningStep<Storage.Output, Failure, Target>

    @usableFromInline var storage = Storage()
    @usableFromInline var upstreams = CombiningUpstreams()
    /// Bit `i` set: upstream `i` has finished.
    @usableFromInline var finishedMask: UInt8 = 0
    /// The downstream; `nil` once cancelled or completed.
    @usableFromInline package private(set) var target: Target?
    /// The downstream demand not yet used by an output.
    @usableFromInline package private(set) var demand = Subscribers.Demand.none
    /// All demand requested from the upstreams so far (for an upstream that subscribes late).
    @usableFromInline var forwarded = Subscribers.Demand.none
    /// `combineLatest`: a value arrived since the last output.
    @usableFromInline var hasFreshValue = false
    /// `combineLatest`: outputs that became due during a delivery, `queue[queueHead...]`.
    @usableFromInline var queue = ContiguousArray<Storage.Output>()
    @usableFromInline var queueHead = 0
    /// A thread is delivering (or the downstream is inside `receive(subscription:)`).
    @usableFromInline package private(set) var isDelivering = true
    /// `zip`: the upstream whose value started the delivery in progress, from inside its
    /// `receive(_:)`; -1 when none.
    @usableFromInline var trigger = -1
    /// `zip`: the demand for upstream ``trigger`` gathered during the delivery, returned from its
    /// `receive(_:)` when the delivery ends.
    @usableFromInline var triggerDemand = Subscribers.Demand.none
    /// The completion to deliver once the outputs already accepted are delivered.
    @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
    /// Cancelled, or the ending is decided: no more values accepted.
    @usableFromInline package private(set) var isTerminated = false

    /// A state delivering to `target`, which has yet to receive its subscription (call
    /// ``subscriptionDelivered(_:)`` once it has).
    @inlinable
    package init(target: Target) {
        self.target = target
    }

    // MARK: Queries

    /// Whether an output is due (given demand, for `combineLatest`).
    @inlinable
    package var canEmit: Bool {
        storage.isComplete && (!Storage.keepsLatest || hasFreshValue)
    }

    /// Whether an output is to be delivered now: due, and (`combineLatest` only) asked for.
    @inlinable
    var canDeliver: Bool {
        if Storage.keepsLatest { return demand > 0 && canEmit }
        return storage.isComplete
    }

    /// Whether the stream must finish now (see the type's discussion).
    @inlinable
    var shouldFinish: Bool {
        if Storage.keepsLatest {
            return finishedMask == UInt8(1 << Storage.arity) - 1 && !canEmit
        }
        for index in 0..<Storage.arity where finishedMask & (1 << index) != 0 && storage.isEmpty(at: index) {
            return true
        }
        return false
    }

    /// How many outputs wait in the queue.
    @inlinable
    package var queuedCount: Int { queue.count - queueHead }

    // MARK: Transitions

    /// Upstream `index` sent its subscription.
    @inlinable
    package mutating func attach(_ subscription: any Subscription, at index: Int) -> CombiningAttachment {
        guard !isTerminated, upstreams[index].attach(subscription) else { return .cancel }
        return forwarded == .none ? .keep : .request(forwarded)
    }

    /// Upstream `L.index` sent a value.
    @inlinable
    package mutating func receive<L: CombiningLane>(_ value: L.Value, lane: L.Type) -> Step
    where L.Storage == Storage {
        guard !isTerminated, upstreams[L.index].subscription != nil else { return .idle }
        L.put(value, into: &storage)
        if Storage.keepsLatest { hasFreshValue = true }
        guard canDeliver, let target else { return .idle }
        if isDelivering {
            // zip's due output waits in the slots; combineLatest's must be taken now.
            if Storage.keepsLatest { queue.append(takeOutput()) }
            return .idle
        }
        isDelivering = true
        if !Storage.keepsLatest { trigger = L.index }
        return .value(takeOutput(), target)
    }

    /// Upstream `index` completed.
    @inlinable
    package mutating func complete(_ completion: Subscribers.Completion<Failure>, at index: Int,
                                   _ calls: inout CombiningCalls) -> Step
    {
        guard !isTerminated else { return .idle }
        // `zip` cancels the failing upstream too, as Apple's Combine does.
        let failing = Storage.keepsLatest ? nil : upstreams[index].subscription
        guard upstreams[index].finish() else { return .idle }
        switch completion {
        case .finished:
            finishedMask |= 1 << index
        case .failure:
            terminate(with: completion, &calls)
            if let failing { calls.append(failing) }
        }
        if isDelivering { return .idle }
        isDelivering = true
        return nextStep(&calls)
    }

    /// The downstream requested more.
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand, _ calls: inout CombiningCalls) -> Step {
        guard target != nil, !isTerminated else { return .idle }
        self.demand += demand
        forward(demand, &calls)
        if isDelivering { return .idle }
        isDelivering = true
        return nextStep(&calls)
    }

    /// The live upstream subscriptions, for a request of `demand` (after an owed output was
    /// delivered by ``request(_:_:)``).
    @inlinable
    package mutating func liveUpstreams(requesting demand: Subscribers.Demand, _ calls: inout CombiningCalls) {
        guard target != nil, !isTerminated else { return }
        calls.demand = demand
        for index in 0..<Storage.arity {
            guard let subscription = upstreams[index].subscription else { continue }
            if !Storage.keepsLatest && index == trigger {
                triggerDemand += demand
            } else {
                calls.append(subscription)
            }
        }
    }

    /// The downstream returned from `receive(_:)` with `more` demand: the next step of the
    /// delivery.
    @inlinable
    package mutating func delivered(_ more: Subscribers.Demand, _ calls: inout CombiningCalls) -> Step {
        if more != .none, target != nil, !isTerminated {
            demand += more
            forward(more, &calls)
        }
        return nextStep(&calls)
    }

    /// The downstream has returned from `receive(subscription:)`: ends the initial "delivery".
    @inlinable
    package mutating func subscriptionDelivered(_ calls: inout CombiningCalls) -> Step {
        nextStep(&calls)
    }

    /// The downstream cancelled: returns what to release outside the lock.
    @inlinable
    package mutating func cancel(_ calls: inout CombiningCalls)
        -> (Target?, Storage, ContiguousArray<Storage.Output>)
    {
        isTerminated = true
        pendingCompletion = nil
        triggerDemand = .none
        calls = CombiningCalls()
        for index in 0..<Storage.arity {
            if let subscription = upstreams[index].detach() { calls.append(subscription) }
        }
        defer {
            target = nil
            storage = Storage()
            queue = []
            queueHead = 0
        }
        return (target, storage, queue)
    }

    // MARK: Helpers

    /// Requests `demand` from every live upstream.
    @inlinable
    mutating func forward(_ demand: Subscribers.Demand, _ calls: inout CombiningCalls) {
        forwarded += demand
        liveUpstreams(requesting: demand, &calls)
    }

    /// Takes the next output, using one demand.
    @inlinable
    mutating func takeOutput() -> Storage.Output {
        demand -= 1
        hasFreshValue = false
        return storage.take()
    }

    /// Decides the ending: no more values accepted, every other upstream cancelled, `completion`
    /// delivered after the outputs already accepted.
    @inlinable
    mutating func terminate(with completion: Subscribers.Completion<Failure>, _ calls: inout CombiningCalls) {
        isTerminated = true
        pendingCompletion = completion
        triggerDemand = .none
        calls = CombiningCalls()
        for index in 0..<Storage.arity {
            if let subscription = upstreams[index].detach() { calls.append(subscription) }
        }
        storage.removeAll()
        hasFreshValue = false
    }

    /// Decides the next step of a delivery in progress. Called with `isDelivering` set; clears it
    /// when there is nothing left to do.
    @inlinable
    mutating func nextStep(_ calls: inout CombiningCalls) -> Step {
        guard let target else {
            endDelivery(&calls)
            return .idle
        }
        if queueHead < queue.count {
            let output = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            return .value(output, target)
        }
        if !isTerminated {
            if canDeliver { return .value(takeOutput(), target) }
            if shouldFinish { terminate(with: .finished, &calls) }
        }
        endDelivery(&calls)
        guard let completion = pendingCompletion else { return .idle }
        pendingCompletion = nil
        self.target = nil
        queue = []
        return .completion(completion, target)
    }

    /// Ends the delivery in progress; for `zip`, hands the demand gathered for the upstream that
    /// started it to `calls.returned`.
    @inlinable
    mutating func endDelivery(_ calls: inout CombiningCalls) {
        isDelivering = false
        if !Storage.keepsLatest && trigger >= 0 {
            calls.returned = triggerDemand
            triggerDemand = .none
            trigger = -1
        }
    }
}
