/// Where a subscriber stands with its upstream: the state every subscriber that keeps its
/// subscription (Sink, Assign, the subject bridge, TestSubscriber) shares. Kept behind the owner's
/// lock; each transition returns what the owner must do once the lock is released.
///
/// A struct of a plain phase and the subscription, rather than an enum whose case carries the
/// subscription: `any Subscription` is an opaque existential, and matching an enum that carries
/// one copies (and then destroys) the whole value through its witnesses, several times per value
/// on the per-element paths that ask where they stand. The phase is read without touching the
/// subscription.
@usableFromInline
package struct UpstreamStatus {
    /// Where the relationship stands.
    @usableFromInline
    package enum Phase {
        /// No subscription yet.
        case awaiting
        /// Subscribed; ``UpstreamStatus/held`` holds the upstream subscription.
        case subscribed
        /// Cancelled or completed: the upstream reference is released for good.
        case terminal
    }

    @usableFromInline package var phase: Phase
    /// The upstream subscription while ``phase`` is ``Phase/subscribed``; `nil` otherwise.
    @usableFromInline package var held: (any Subscription)?

    @inlinable
    package init() {
        phase = .awaiting
        held = nil
    }

    /// No subscription yet.
    @inlinable
    package static var awaiting: UpstreamStatus { UpstreamStatus() }

    /// Cancelled or completed, holding nothing.
    @inlinable
    package static var terminal: UpstreamStatus {
        var status = UpstreamStatus()
        status.phase = .terminal
        return status
    }

    /// Accepts a first subscription. Returns `false` when one was already received (or the owner
    /// is done), in which case the caller must cancel the new one (contract rule 1).
    @inlinable
    package mutating func attach(_ subscription: any Subscription) -> Bool {
        guard phase == .awaiting else { return false }
        phase = .subscribed
        held = subscription
        return true
    }

    /// Ends the relationship for a cancel: returns the subscription to cancel once unlocked.
    @inlinable
    package mutating func detach() -> (any Subscription)? {
        phase = .terminal
        return held.take()
    }

    /// Ends the relationship for a completion. Returns `false` if it had already ended, in which
    /// case the completion must be ignored (contract rule 3).
    @inlinable
    package mutating func finish() -> Bool {
        guard phase != .terminal else { return false }
        phase = .terminal
        held = nil
        return true
    }

    /// The live subscription, if any.
    @inlinable
    package var subscription: (any Subscription)? { held }

    /// `true` before the first subscription.
    @inlinable
    package var isAwaiting: Bool { phase == .awaiting }

    /// `true` while subscribed.
    @inlinable
    package var isSubscribed: Bool { phase == .subscribed }

    /// `true` once cancelled or completed.
    @inlinable
    package var isTerminal: Bool { phase == .terminal }
}
