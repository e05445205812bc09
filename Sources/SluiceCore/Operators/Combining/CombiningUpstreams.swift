// The upstream subscriptions of a combining operator, and the calls to make on them once its lock
// is released; both inline, so that `CombiningState` stays free of allocations.

// MARK: Upstream bookkeeping

/// The upstream subscriptions of one combining subscription, by position (at most four), without
/// an array: the state machine stays free of allocations.
@usableFromInline
package struct CombiningUpstreams {
    @usableFromInline var u0 = UpstreamStatus()
    @usableFromInline var u1 = UpstreamStatus()
    @usableFromInline var u2 = UpstreamStatus()
    @usableFromInline var u3 = UpstreamStatus()

    @inlinable package init() {}

    @inlinable
    package subscript(index: Int) -> UpstreamStatus {
        get {
            switch index {
            case 0: return u0
            case 1: return u1
            case 2: return u2
            default: return u3
            }
        }
        set {
            switch index {
            case 0: u0 = newValue
            case 1: u1 = newValue
            case 2: u2 = newValue
            default: u3 = newValue
            }
        }
    }
}

/// Calls to make on upstream subscriptions once the lock is released: cancel them all, or request
/// the same demand from each. Holds at most four, inline.
@usableFromInline
package struct CombiningCalls {
    @usableFromInline var s0: (any Subscription)?
    @usableFromInline var s1: (any Subscription)?
    @usableFromInline var s2: (any Subscription)?
    @usableFromInline var s3: (any Subscription)?
    /// How many subscriptions are held.
    @usableFromInline package private(set) var count = 0
    /// `.none`: cancel the subscriptions; otherwise request this much from each.
    @usableFromInline package var demand = Subscribers.Demand.none
    /// `zip`: the demand to return from the upstream's `receive(_:)` whose value started the
    /// delivery that just ended (see ``CombiningState``).
    @usableFromInline package var returned = Subscribers.Demand.none

    @inlinable package init() {}

    @inlinable
    package mutating func append(_ subscription: any Subscription) {
        switch count {
        case 0: s0 = subscription
        case 1: s1 = subscription
        case 2: s2 = subscription
        default: s3 = subscription
        }
        count += 1
    }

    /// The subscriptions held, in upstream order.
    @inlinable
    package var subscriptions: [any Subscription] {
        [s0, s1, s2, s3].prefix(count).map { $0! }
    }

    /// Makes the calls. Call without holding any lock.
    @inlinable
    package func perform() {
        guard count > 0 else { return }
        call(s0)
        if count > 1 { call(s1) }
        if count > 2 { call(s2) }
        if count > 3 { call(s3) }
    }

    @inlinable
    func call(_ subscription: (any Subscription)?) {
        guard let subscription else { return }
        if demand == .none {
            subscription.cancel()
        } else {
            subscription.request(demand)
        }
    }
}
