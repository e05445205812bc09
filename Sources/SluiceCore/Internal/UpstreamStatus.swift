/// Where a subscriber stands with its upstream: the state every subscriber that keeps its
/// subscription (Sink, Assign, the subject bridge, TestSubscriber) shares. Kept behind the owner's
/// lock; each transition returns what the owner must do once the lock is released.
@usableFromInline
package enum UpstreamStatus {
    /// No subscription yet.
    case awaiting
    /// Subscribed; holds the upstream subscription.
    case subscribed(any Subscription)
    /// Cancelled or completed: the upstream reference is released for good.
    case terminal

    @inlinable
    package init() { self = .awaiting }

    /// Accepts a first subscription. Returns `false` when one was already received (or the owner
    /// is done), in which case the caller must cancel the new one (contract rule 1).
    @inlinable
    package mutating func attach(_ subscription: any Subscription) -> Bool {
        guard case .awaiting = self else { return false }
        self = .subscribed(subscription)
        return true
    }

    /// Ends the relationship for a cancel: returns the subscription to cancel once unlocked.
    @inlinable
    package mutating func detach() -> (any Subscription)? {
        defer { self = .terminal }
        if case .subscribed(let subscription) = self { return subscription }
        return nil
    }

    /// Ends the relationship for a completion. Returns `false` if it had already ended, in which
    /// case the completion must be ignored (contract rule 3).
    @inlinable
    package mutating func finish() -> Bool {
        if case .terminal = self { return false }
        self = .terminal
        return true
    }

    /// The live subscription, if any.
    @inlinable
    package var subscription: (any Subscription)? {
        if case .subscribed(let subscription) = self { return subscription }
        return nil
    }

    /// `true` once cancelled or completed.
    @inlinable
    package var isTerminal: Bool {
        if case .terminal = self { return true }
        return false
    }
}
