/// Which operator an ``UntilOutputSubscription`` is: a type, so that each operator's
/// subscription shows (or not) the descriptions Apple's Combine gives it.
@usableFromInline
protocol UntilOutputFlavor {
    /// The flavour's mode.
    static var mode: UntilOutputMode { get }
}

/// Which operator this is.
@usableFromInline
enum UntilOutputMode: Sendable {
    /// `drop(untilOutputFrom:)`: values pass only after the trigger.
    case dropUntil
    /// `prefix(untilOutputFrom:)`: values pass until the trigger, which finishes the stream.
    case prefixUntil
}

/// `drop(untilOutputFrom:)`'s flavour: described "DropUntilOutput", with an empty mirror.
@usableFromInline
enum DropUntilOutputFlavor: UntilOutputFlavor {
    @inlinable static var mode: UntilOutputMode { .dropUntil }
}

/// `prefix(untilOutputFrom:)`'s flavour: no description, mirror or playground description of its
/// own (as in Apple's Combine, whose type name, shown instead, names the operator).
@usableFromInline
enum PrefixUntilOutputFlavor: UntilOutputFlavor {
    @inlinable static var mode: UntilOutputMode { .prefixUntil }
}

/// The state shared by `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)`: whether the other
/// publisher has emitted, which deliveries to the downstream are in progress, the completion
/// waiting for them to end, and (drop) the downstream's demand.
///
/// A completion may be decided on the other publisher's thread while the upstream's thread is
/// inside the downstream's `receive(_:)`. Such a completion waits (`pending`) until every delivery
/// in progress has returned, and the thread whose delivery ends last sends it: the downstream
/// never sees two calls at once, and never a value after its completion. The downstream's
/// `receive(subscription:)` counts as a delivery, so nothing overtakes the subscription either.
@usableFromInline
struct UntilOutputState<Failure: Error> {
    /// What to do with a value from the upstream.
    @usableFromInline
    enum ValueDecision: Equatable {
        /// Deliver it (the delivery is now counted in progress).
        case deliver
        /// Drop it: before drop's trigger, or the stream is over.
        case ignore
    }

    /// What to do when the other publisher emits or completes.
    @usableFromInline
    enum TriggerDecision {
        /// Nothing.
        case ignore
        /// Drop's trigger: forget the other publisher's subscription without cancelling it (a
        /// new one may then attach, as in Apple's Combine).
        case forgetOther
        /// Cancel the upstream and, if not `nil`, deliver this completion now (otherwise it is
        /// pending and the delivery in progress sends it).
        case end(Subscribers.Completion<Failure>?)
    }

    @usableFromInline let mode: UntilOutputMode
    /// The other publisher has emitted.
    @usableFromInline var triggered = false
    /// Deliveries to the downstream in progress (the subscription counts as one).
    @usableFromInline var active = 0
    /// A completion waiting for the deliveries in progress to return.
    @usableFromInline var pending: Subscribers.Completion<Failure>?
    /// A completion was decided, or the downstream cancelled: no more values.
    @usableFromInline var closed = false
    /// The downstream cancelled.
    @usableFromInline var cancelled = false
    /// Drop: the demand the upstream may still meet (requested, less values received, plus what
    /// the downstream returned).
    @usableFromInline var demand = Subscribers.Demand.none
    /// Drop: demand requested before the upstream's subscription arrived.
    @usableFromInline var pendingDemand = Subscribers.Demand.none

    @inlinable
    init(mode: UntilOutputMode) {
        self.mode = mode
    }

    /// A value from the upstream. Drop traps when the upstream exceeds the demand, as Apple's
    /// Combine does.
    @inlinable
    mutating func upstreamValue() -> ValueDecision {
        if cancelled { return .ignore }
        if mode == .dropUntil {
            precondition(demand > 0, "drop(untilOutputFrom:): the upstream sent a value it was not asked for")
            demand -= 1
        }
        if closed { return .ignore }
        if mode == .dropUntil && !triggered { return .ignore }
        active += 1
        return .deliver
    }

    /// A value was delivered and the downstream returned `more`.
    @inlinable
    mutating func delivered(more: Subscribers.Demand) {
        if mode == .dropUntil { demand += more }
    }

    /// A delivery (a value, or the subscription) returned. Returns the pending completion to
    /// deliver now, if this was the last delivery in progress.
    @inlinable
    mutating func deliveryEnded() -> Subscribers.Completion<Failure>? {
        active -= 1
        guard active == 0, let completion = pending else { return nil }
        pending = nil
        return completion
    }

    /// The other publisher emitted a value.
    @inlinable
    mutating func otherValue() -> TriggerDecision {
        if closed || triggered { return .ignore }
        triggered = true
        switch mode {
        case .dropUntil: return .forgetOther
        case .prefixUntil: return .end(end(with: .finished))
        }
    }

    /// The other publisher completed; `failure` is its error as this stream's failure (drop), or
    /// `nil` (finished, or prefix).
    @inlinable
    mutating func otherCompleted(failure: Failure?) -> TriggerDecision {
        if closed || triggered { return .ignore }
        guard mode == .dropUntil else { return .ignore }
        return .end(end(with: failure.map { .failure($0) } ?? .finished))
    }

    /// The upstream completed. Returns the completion to deliver now (or `nil`: pending, or the
    /// stream was already over).
    @inlinable
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> (
        ended: Bool, deliver: Subscribers.Completion<Failure>?
    ) {
        if closed { return (false, nil) }
        return (true, end(with: completion))
    }

    /// The downstream cancelled.
    @inlinable
    mutating func cancel() {
        closed = true
        cancelled = true
        pending = nil
    }

    /// Closes the stream with `completion`: returns it if no delivery is in progress, otherwise
    /// keeps it pending.
    @inlinable
    mutating func end(with completion: Subscribers.Completion<Failure>) -> Subscribers.Completion<Failure>? {
        closed = true
        if active == 0 { return completion }
        pending = completion
        return nil
    }
}

/// The one subscription behind `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)`: the
/// upstream's subscriber, the downstream's subscription, and (through ``UntilOutputTrigger``) the
/// other publisher's subscriber. Behaves as Apple's Combine does:
///
/// - drop: the downstream receives its subscription first, then `other` is subscribed (and asked
///   for one value), then the upstream. Requests go to the upstream (those made before its
///   subscription arrives are added up and requested when it does; `.none` is ignored); values
///   before the trigger are dropped (returning `.none`); a value beyond the demand traps. The
///   trigger is not cancelled; `other` completing before its first value cancels the upstream and
///   ends the stream with that completion.
/// - prefix: `other` is subscribed first, then the upstream, whose subscription reaches the
///   downstream. Requests (`.none` included) go to the upstream. The trigger cancels the upstream
///   and finishes (before the upstream's subscription arrives, the downstream receives `.finished`
///   alone, and that subscription is cancelled when it comes — an exception to contract rule 1,
///   as in Apple's Combine); `other` is not cancelled, and its completion changes nothing.
/// - Never calls out while holding its lock; `cancel()` is idempotent, thread-safe and cancels
///   the upstream, then `other`, and releases the downstream; so does any completion.
@usableFromInline
final class UntilOutputSubscription<Downstream: Subscriber, OtherOutput, OtherFailure: Error,
    Flavor: UntilOutputFlavor>: Subscriber, Subscription, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias State = UntilOutputState<Failure>

    @usableFromInline let lock = Lock()
    // Guarded by `lock`:
    @exclusivity(unchecked) @usableFromInline var state: State
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
    @exclusivity(unchecked) @usableFromInline var other = UpstreamStatus()
    @exclusivity(unchecked) @usableFromInline var subscriptionForwarded = false
    // Immutable:
    /// The other publisher's failure as this stream's (drop), or `nil` (prefix ignores it).
    @usableFromInline let bridgeFailure: ((OtherFailure) -> Failure)?

    @inlinable
    init(downstream: Downstream, bridgeFailure: ((OtherFailure) -> Failure)?) {
        state = State(mode: Flavor.mode)
        self.downstream = downstream
        self.bridgeFailure = bridgeFailure
    }

    /// The subscriber to attach to the other publisher.
    @inlinable
    var trigger: UntilOutputTrigger<Downstream, OtherOutput, OtherFailure, Flavor> {
        UntilOutputTrigger(parent: self)
    }

    /// Drop: hands the downstream its subscription, before anything is subscribed.
    @inlinable
    func start() {
        let target = lock.withLock { () -> Downstream? in
            subscriptionForwarded = true
            state.active += 1
            return downstream
        }
        target?.receive(subscription: self)
        deliveryEnded()
    }

    // MARK: Upstream side

    @inlinable
    func receive(subscription: any Subscription) {
        switch Flavor.mode {
        case .dropUntil:
            let (keep, demand) = lock.withLock { () -> (Bool, Subscribers.Demand) in
                guard !state.cancelled, upstream.attach(subscription) else { return (false, .none) }
                defer { state.pendingDemand = .none }
                return (true, state.pendingDemand)
            }
            if !keep {
                subscription.cancel()
            } else if demand > 0 {
                subscription.request(demand)
            }
        case .prefixUntil:
            let (target, keep) = lock.withLock { () -> (Downstream?, Bool) in
                // Once the other publisher has ended the stream (the downstream got `.finished`
                // without a subscription, as in Apple's Combine), the subscription is cancelled.
                guard let downstream, !subscriptionForwarded else { return (nil, false) }
                subscriptionForwarded = true
                // Forwarding the subscription counts as a delivery: a completion decided
                // meanwhile waits for it.
                state.active += 1
                return (downstream, upstream.attach(subscription))
            }
            if !keep { subscription.cancel() }
            guard let target else { return }
            target.receive(subscription: self)
            deliveryEnded()
        }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let (decision, target) = lock.withLock { () -> (State.ValueDecision, Downstream?) in
            if Flavor.mode == .prefixUntil && upstream.subscription == nil { return (.ignore, nil) }
            return (state.upstreamValue(), downstream)
        }
        guard decision == .deliver else { return .none }
        let more = target?.receive(input) ?? .none
        if Flavor.mode == .dropUntil { lock.withLock { state.delivered(more: more) } }
        deliveryEnded()
        return more
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let (deliver, otherSubscription) = lock.withLock {
            () -> (Subscribers.Completion<Failure>?, (any Subscription)?) in
            if Flavor.mode == .prefixUntil, upstream.isAwaiting {
                // Before the subscription, prefix delivers nothing but lets `other` go (Apple's
                // Combine does so).
                upstream = .terminal
                state.cancel()
                return (nil, other.detach())
            }
            guard upstream.finish() else { return (nil, nil) }
            let (ended, deliver) = state.upstreamCompleted(completion)
            return (deliver, ended ? other.detach() : nil)
        }
        otherSubscription?.cancel()
        if let deliver { complete(with: deliver) }
    }

    // MARK: Other side (called by the trigger)

    @usableFromInline
    func otherReceive(subscription: any Subscription) {
        let accepted = lock.withLock {
            !state.closed && (Flavor.mode == .dropUntil || !state.triggered) && other.attach(subscription)
        }
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()
        }
    }

    @usableFromInline
    func otherReceiveValue() {
        let decision = lock.withLock { () -> State.TriggerDecision? in
            guard other.subscription != nil else { return nil }
            return state.otherValue()
        }
        if let decision { perform(decision) }
    }

    @usableFromInline
    func otherReceive(completion: Subscribers.Completion<OtherFailure>) {
        let decision = lock.withLock { () -> State.TriggerDecision? in
            guard other.finish() else { return nil }
            var failure: Failure?
            if case .failure(let error) = completion, let bridgeFailure { failure = bridgeFailure(error) }
            return state.otherCompleted(failure: failure)
        }
        if let decision { perform(decision) }
    }

    /// Acts on what the other publisher's event decided: cancels the upstream (drop leaves one
    /// yet to arrive free to attach, as Apple's Combine does), then completes.
    @usableFromInline
    func perform(_ decision: State.TriggerDecision) {
        if case .forgetOther = decision {
            let released = lock.withLock { () -> (any Subscription)? in
                defer { other = UpstreamStatus() }
                return other.subscription
            }
            _ = released  // released here, outside the lock
            return
        }
        guard case .end(let deliver) = decision else { return }
        let up = lock.withLock { () -> (any Subscription)? in
            if Flavor.mode == .dropUntil && upstream.subscription == nil { return nil }
            return upstream.detach()
        }
        up?.cancel()
        if let deliver { complete(with: deliver) }
    }

    // MARK: Downstream side

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        switch Flavor.mode {
        case .prefixUntil:
            lock.withLock { upstream.subscription }?.request(demand)
        case .dropUntil:
            guard demand > .none else { return }
            let subscription = lock.withLock { () -> (any Subscription)? in
                guard !state.cancelled else { return nil }
                state.demand += demand
                guard let live = upstream.subscription else {
                    if upstream.isAwaiting { state.pendingDemand += demand }
                    return nil
                }
                return live
            }
            subscription?.request(demand)
        }
    }

    @inlinable
    func cancel() {
        let (up, ot, released) = lock.withLock { () -> ((any Subscription)?, (any Subscription)?, Downstream?) in
            state.cancel()
            defer { downstream = nil }
            return (upstream.detach(), other.detach(), downstream)
        }
        up?.cancel()
        ot?.cancel()
        _ = released  // released here, outside the lock
    }

    // MARK: Delivery

    /// A delivery to the downstream returned: sends the completion that waited for it, if any.
    @inlinable
    func deliveryEnded() {
        if let completion = lock.withLock({ state.deliveryEnded() }) {
            complete(with: completion)
        }
    }

    /// Sends the completion and releases the downstream.
    @inlinable
    func complete(with completion: Subscribers.Completion<Failure>) {
        let target = lock.withLock { () -> Downstream? in
            defer { downstream = nil }
            return downstream
        }
        target?.receive(completion: completion)
    }
}

extension UntilOutputSubscription: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Flavor == DropUntilOutputFlavor {
    /// "DropUntilOutput".
    @usableFromInline var description: String { "DropUntilOutput" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

/// The subscriber ``UntilOutputSubscription`` attaches to the other publisher; forwards its events.
/// Holds its parent until the other publisher releases it (on cancel or completion). Its
/// `combineIdentifier` is its parent's, as in Apple's Combine.
@usableFromInline
final class UntilOutputTrigger<Downstream: Subscriber, OtherOutput, OtherFailure: Error,
    Flavor: UntilOutputFlavor>: Subscriber, @unchecked Sendable
{
    @usableFromInline typealias Input = OtherOutput
    @usableFromInline typealias Failure = OtherFailure

    @usableFromInline let parent: UntilOutputSubscription<Downstream, OtherOutput, OtherFailure, Flavor>

    @inlinable
    init(parent: UntilOutputSubscription<Downstream, OtherOutput, OtherFailure, Flavor>) {
        self.parent = parent
    }

    @inlinable
    var combineIdentifier: CombineIdentifier { parent.combineIdentifier }

    @inlinable
    func receive(subscription: any Subscription) {
        parent.otherReceive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: OtherOutput) -> Subscribers.Demand {
        parent.otherReceiveValue()
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<OtherFailure>) {
        parent.otherReceive(completion: completion)
    }
}

extension UntilOutputTrigger: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Flavor == DropUntilOutputFlavor {
    /// "DropUntilOutput".
    @usableFromInline var description: String { "DropUntilOutput" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
