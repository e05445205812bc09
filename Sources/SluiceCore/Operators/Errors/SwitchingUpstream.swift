/// The state shared by operators that replace their upstream mid-stream while the downstream keeps
/// one subscription (`catch`, `tryCatch`, `retry`): the current upstream subscription, the demand
/// the downstream requested and has not received yet (carried over to the next upstream), and
/// whether the downstream has been subscribed and whether the stream has ended.
///
/// A value type kept behind its owner's lock; each transition returns what the owner must do once
/// the lock is released.
@usableFromInline
struct SwitchingUpstream<Downstream: Subscriber> {
    /// What to do with an upstream subscription that has just arrived.
    @usableFromInline
    enum Attachment {
        /// Refuse it: cancel it (ended, or one is already current).
        case cancel
        /// The first one: hand the owner to the downstream as its subscription.
        case subscribeDownstream(Downstream)
        /// A replacement: ask it for the demand still owed.
        case request(Subscribers.Demand)
        /// A replacement while nothing is owed.
        case nothing
    }

    @usableFromInline var downstream: Downstream?
    @usableFromInline var current: (any Subscription)?
    /// Requested by the downstream and not yet delivered.
    @usableFromInline var outstanding = Subscribers.Demand.none
    @usableFromInline var subscribedDownstream = false
    @usableFromInline var terminated = false

    @inlinable
    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The downstream requested `demand`: the current upstream to forward it to.
    @inlinable
    mutating func request(_ demand: Subscribers.Demand) -> (any Subscription)? {
        guard !terminated else { return nil }
        outstanding += demand
        return current
    }

    /// The downstream cancelled: ends the stream; returns the upstream subscription to cancel.
    @inlinable
    mutating func cancel() -> (any Subscription)? {
        guard !terminated else { return nil }
        terminated = true
        downstream = nil
        defer { current = nil }
        return current
    }

    /// An upstream subscription arrived.
    @inlinable
    mutating func attach(_ subscription: any Subscription) -> Attachment {
        guard !terminated, current == nil else { return .cancel }
        current = subscription
        if !subscribedDownstream, let downstream {
            subscribedDownstream = true
            return .subscribeDownstream(downstream)
        }
        return outstanding == .none ? .nothing : .request(outstanding)
    }

    /// A value arrived: the downstream to deliver it to, counting it against the demand owed.
    @inlinable
    mutating func willDeliver(_ name: StaticString) -> Downstream? {
        guard !terminated, let downstream else { return nil }
        // Apple's Combine traps on a value nobody asked for (before the subscription, or
        // beyond the demand).
        precondition(subscribedDownstream && outstanding > .none, "\(name): the upstream sent a value it was not asked for")
        if outstanding != .unlimited { outstanding -= 1 }
        return downstream
    }

    /// The downstream returned `more` from `receive(_:)`, which is to be requested from the
    /// current upstream (rather than returned to it): returns that upstream, if any.
    @inlinable
    mutating func returned(_ more: Subscribers.Demand) -> (any Subscription)? {
        guard !terminated else { return nil }
        outstanding += more
        return current
    }

    /// The downstream returned `more` from `receive`: the demand to return upstream.
    @inlinable
    mutating func delivered(adding more: Subscribers.Demand) -> Subscribers.Demand {
        guard !terminated else { return .none }
        outstanding += more
        return more
    }

    /// The current upstream ended; a replacement may follow.
    @inlinable
    mutating func detachCurrent() {
        current = nil
    }

    /// Ends the stream: the downstream to complete, if it has not ended already.
    @inlinable
    mutating func terminate() -> Downstream? {
        guard !terminated else { return nil }
        terminated = true
        current = nil
        defer { downstream = nil }
        return downstream
    }
}

extension SwitchingUpstream.Attachment {
    /// Carries the decision out, outside the lock: `owner` is the subscription the downstream gets.
    @inlinable
    func perform(on subscription: any Subscription, owner: any Subscription) {
        switch self {
        case .cancel: subscription.cancel()
        case .subscribeDownstream(let downstream): downstream.receive(subscription: owner)
        case .request(let demand): subscription.request(demand)
        case .nothing: break
        }
    }
}
