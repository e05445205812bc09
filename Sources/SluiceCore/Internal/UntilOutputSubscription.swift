/// The state shared by `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)`: whether the other
/// publisher has emitted, which deliveries to the downstream are in progress, and the completion
/// waiting for them to end.
///
/// Values come only from the upstream, but a completion may be decided on the other publisher's
/// thread (prefix's trigger, drop's failing trigger) while the upstream's thread is inside the
/// downstream's `receive(_:)`. Such a completion waits (`pending`) until every delivery in progress
/// has returned, and the thread whose delivery ends last sends it: the downstream never sees two
/// calls at once, and never a value after its completion. The downstream's
/// `receive(subscription:)` counts as a delivery, so nothing overtakes the subscription either.
@usableFromInline
struct UntilOutputState<Failure: Error> {
    /// Which operator this is.
    @usableFromInline
    enum Mode {
        /// `drop(untilOutputFrom:)`: values pass only after the trigger.
        case dropUntil
        /// `prefix(untilOutputFrom:)`: values pass until the trigger, which finishes the stream.
        case prefixUntil
    }

    /// What to do with a value from the upstream.
    @usableFromInline
    enum ValueDecision: Equatable {
        /// Deliver it (the delivery is now counted in progress).
        case deliver
        /// Drop it and ask the upstream for one in its place (drop, before the trigger).
        case replace
        /// Drop it: the stream is over.
        case ignore
    }

    /// What to do when the other publisher emits or completes.
    @usableFromInline
    enum TriggerDecision {
        /// Nothing.
        case ignore
        /// Cancel the other publisher (drop's trigger: values now pass).
        case cancelOther
        /// Cancel both publishers and, if not `nil`, deliver this completion now (otherwise it is
        /// pending and the delivery in progress sends it).
        case end(Subscribers.Completion<Failure>?)
    }

    @usableFromInline let mode: Mode
    /// The other publisher has emitted.
    @usableFromInline var triggered = false
    /// Deliveries to the downstream in progress; starts at 1 for `receive(subscription:)`.
    @usableFromInline var active = 1
    /// A completion waiting for the deliveries in progress to return.
    @usableFromInline var pending: Subscribers.Completion<Failure>?
    /// A completion was decided, or the downstream cancelled: no more values.
    @usableFromInline var closed = false

    @inlinable
    init(mode: Mode) {
        self.mode = mode
    }

    /// A value from the upstream.
    @inlinable
    mutating func upstreamValue() -> ValueDecision {
        if closed { return .ignore }
        if mode == .dropUntil && !triggered { return .replace }
        active += 1
        return .deliver
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
        case .dropUntil: return .cancelOther
        case .prefixUntil: return .end(end(with: .finished))
        }
    }

    /// The other publisher completed; `failure` is its error as this stream's failure, or `nil`
    /// (finished, or prefix, which ignores the other's failure).
    @inlinable
    mutating func otherCompleted(failure: Failure?) -> TriggerDecision {
        if closed || triggered { return .ignore }
        guard mode == .dropUntil, let failure else { return .ignore }
        return .end(end(with: .failure(failure)))
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
/// other publisher's subscriber.
///
/// - Demand: downstream requests go to the upstream unchanged, and the demand the downstream
///   returns from `receive(_:)` goes back to it. A value dropped before drop's trigger is replaced
///   by returning `.max(1)`, so downstream demand counts only the values it receives. The other
///   publisher is asked for one value.
/// - The trigger: drop cancels the other publisher and lets values through; prefix cancels both
///   publishers and finishes. A failure of the other publisher fails drop (their failure types
///   are the same) and is ignored by prefix; the other finishing without a value changes nothing.
/// - Never calls out while holding its lock; `cancel()` is idempotent, thread-safe and releases
///   the downstream and both subscriptions; so does any completion.
@usableFromInline
final class UntilOutputSubscription<Downstream: Subscriber, OtherOutput, OtherFailure: Error>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias State = UntilOutputState<Failure>

    @usableFromInline let lock = Lock()
    // Guarded by `lock`:
    @usableFromInline var state: State
    @usableFromInline var downstream: Downstream?
    @usableFromInline var upstream = UpstreamStatus()
    @usableFromInline var other = UpstreamStatus()
    @usableFromInline var subscriptionForwarded = false
    // Immutable:
    @usableFromInline let name: String
    /// The other publisher's failure as this stream's (drop), or `nil` (prefix ignores it).
    @usableFromInline let bridgeFailure: ((OtherFailure) -> Failure)?

    @inlinable
    init(mode: State.Mode, downstream: Downstream, name: String, bridgeFailure: ((OtherFailure) -> Failure)?) {
        state = State(mode: mode)
        self.downstream = downstream
        self.name = name
        self.bridgeFailure = bridgeFailure
    }

    /// The subscriber to attach to the other publisher.
    @inlinable
    var trigger: UntilOutputTrigger<Downstream, OtherOutput, OtherFailure> {
        UntilOutputTrigger(parent: self)
    }

    // MARK: Upstream side

    @inlinable
    func receive(subscription: any Subscription) {
        let (target, keep) = lock.withLock { () -> (Downstream?, Bool) in
            guard let downstream, !subscriptionForwarded else { return (nil, false) }
            subscriptionForwarded = true
            // Refused when the other publisher already ended the stream: the downstream still gets
            // its subscription, then the pending completion.
            return (downstream, upstream.attach(subscription))
        }
        if !keep { subscription.cancel() }
        guard let target else { return }
        target.receive(subscription: self)
        deliveryEnded()
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let (decision, target) = lock.withLock { () -> (State.ValueDecision, Downstream?) in
            guard upstream.subscription != nil else { return (.ignore, nil) }
            return (state.upstreamValue(), downstream)
        }
        switch decision {
        case .ignore:
            return .none
        case .replace:
            return .max(1)
        case .deliver:
            let more = target?.receive(input) ?? .none
            deliveryEnded()
            return more
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let (deliver, otherSubscription) = lock.withLock {
            () -> (Subscribers.Completion<Failure>?, (any Subscription)?) in
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
        let accepted = lock.withLock { !state.closed && !state.triggered && other.attach(subscription) }
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

    /// Acts on what the other publisher's event decided.
    @usableFromInline
    func perform(_ decision: State.TriggerDecision) {
        switch decision {
        case .ignore:
            return
        case .cancelOther:
            lock.withLock { other.detach() }?.cancel()
        case .end(let deliver):
            let (up, ot) = lock.withLock { (upstream.detach(), other.detach()) }
            up?.cancel()
            ot?.cancel()
            if let deliver { complete(with: deliver) }
        }
    }

    // MARK: Downstream side

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { upstream.subscription }?.request(demand)
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

    /// Sends the completion and releases everything.
    @inlinable
    func complete(with completion: Subscribers.Completion<Failure>) {
        let (target, up, ot) = lock.withLock { () -> (Downstream?, (any Subscription)?, (any Subscription)?) in
            defer { downstream = nil }
            return (downstream, upstream.detach(), other.detach())
        }
        up?.cancel()
        ot?.cancel()
        target?.receive(completion: completion)
    }

    @usableFromInline var description: String { name }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["downstream": lock.withLock { downstream } as Any])
    }
    @usableFromInline var playgroundDescription: Any { description }
}

/// The subscriber ``UntilOutputSubscription`` attaches to the other publisher; forwards its events.
/// Holds its parent until the other publisher releases it (on cancel or completion).
@usableFromInline
final class UntilOutputTrigger<Downstream: Subscriber, OtherOutput, OtherFailure: Error>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = OtherOutput
    @usableFromInline typealias Failure = OtherFailure

    @usableFromInline let parent: UntilOutputSubscription<Downstream, OtherOutput, OtherFailure>

    @inlinable
    init(parent: UntilOutputSubscription<Downstream, OtherOutput, OtherFailure>) {
        self.parent = parent
    }

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

    @usableFromInline var description: String { parent.name }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
