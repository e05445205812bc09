/// The state machine of `switchToLatest`: the upstream of publishers, the one current inner, the
/// downstream demand, and the serialised delivery of the inner's values.
///
/// A value type kept behind its owner's lock; each transition returns what the owner must do once
/// the lock is released. Inners are identified by the `Int` that ``switchInner()`` hands out.
///
/// - Demand: the downstream's outstanding demand is requested from each new inner when it
///   subscribes, and later requests (and demand returned from `receive(_:)`) are forwarded to the
///   current inner. The upstream is asked for `.unlimited`.
/// - Switching cancels the previous inner and drops its waiting values; its late values and
///   completion are ignored.
/// - Serialised delivery as in ``FlatMapState``: one delivering thread, later values wait in
///   `buffer`; a completion decided during a delivery is handed to the delivering thread.
/// - Completion: `.finished` once the upstream and the current inner have finished and nothing
///   waits; the first failure cancels everything else and is the only completion.
@usableFromInline
package struct SwitchToLatestState<Output, Failure: Error> {
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

    /// What to do outside the lock after a completion or a cancel.
    @usableFromInline
    package struct Effects {
        /// Cancel these subscriptions.
        @usableFromInline package var cancel: ContiguousArray<any Subscription> = []
        /// Send this completion downstream (and release the downstream).
        @usableFromInline package var completion: Subscribers.Completion<Failure>?

        @inlinable
        package init(cancel: ContiguousArray<any Subscription> = [], completion: Subscribers.Completion<Failure>? = nil) {
            self.cancel = cancel
            self.completion = completion
        }
    }

    /// The upstream subscription, until the upstream completes or everything ends.
    @usableFromInline package var upstream: (any Subscription)?
    @usableFromInline package var hasUpstream = false
    @usableFromInline package var upstreamFinished = false
    /// The current inner, unless it has finished (or none has arrived yet).
    @usableFromInline package var current: Int?
    /// The current inner's subscription once it has arrived.
    @usableFromInline package var currentSubscription: (any Subscription)?
    @usableFromInline package var nextInner = 0
    /// The downstream demand not yet used.
    @usableFromInline package var demand = Subscribers.Demand.none
    /// Values waiting for their turn, with the inner that sent each.
    @usableFromInline package var buffer = DeliveryQueue<(value: Output, inner: Int)>()
    @usableFromInline package var isDelivering = false
    @usableFromInline package var pendingCompletion: Subscribers.Completion<Failure>?
    /// Cancelled, or the completion is decided: nothing more is accepted.
    @usableFromInline package var isTerminal = false

    @inlinable
    package init() {}

    // MARK: Upstream

    /// Accepts the upstream subscription; `false` means the caller must cancel it.
    @inlinable
    package mutating func attachUpstream(_ subscription: any Subscription) -> Bool {
        guard !isTerminal, !hasUpstream else { return false }
        hasUpstream = true
        upstream = subscription
        return true
    }

    /// The upstream subscription to ask for `.unlimited` once the downstream has its subscription,
    /// unless it has cancelled meanwhile.
    @inlinable
    package func upstreamToRequest() -> (any Subscription)? {
        isTerminal ? nil : upstream
    }

    /// A new inner publisher arrived: its id and the previous inner's subscription to cancel;
    /// `nil` once terminal (the publisher must be ignored).
    @inlinable
    package mutating func switchInner() -> (id: Int, cancel: (any Subscription)?)? {
        guard !isTerminal else { return nil }
        let previous = currentSubscription
        if let old = current {
            buffer.removeAll { $0.inner == old }
        }
        let id = nextInner
        nextInner &+= 1
        current = id
        currentSubscription = nil
        return (id, previous)
    }

    /// The upstream completed.
    @inlinable
    package mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> Effects {
        guard !isTerminal else { return Effects() }
        upstream = nil
        switch completion {
        case .finished:
            upstreamFinished = true
            return finishIfDone()
        case .failure(let error):
            return fail(error)
        }
    }

    // MARK: Inners

    /// An inner's subscription arrived. `nil`: cancel it (it is no longer current, or everything
    /// ended); otherwise the demand to request from it (`.none`: request nothing yet).
    @inlinable
    package mutating func attachInner(_ id: Int, _ subscription: any Subscription) -> Subscribers.Demand? {
        guard !isTerminal, current == id, currentSubscription == nil else { return nil }
        currentSubscription = subscription
        return demand
    }

    /// An inner sent a value: `true` when the caller must deliver it now (it then holds the
    /// delivering role); otherwise it was queued, or dropped (not current, or terminal).
    @inlinable
    package mutating func receiveInner(_ value: Output, from id: Int) -> Bool {
        guard !isTerminal, current == id else { return false }
        if isDelivering || demand == .none || !buffer.isEmpty {
            buffer.append((value, id))
            return false
        }
        demand -= 1
        isDelivering = true
        return true
    }

    /// A value from inner `id` was delivered and the downstream returned `more`. Returns the
    /// current inner's subscription to forward `more` to (`nil`: nothing to forward, or no current
    /// inner subscribed — a new one gets the whole outstanding demand when it subscribes),
    /// `toSender` when that inner is the one that sent the value (the caller may then return `more`
    /// from its `receive(_:)` instead of requesting it), and what the delivering thread does next.
    @inlinable
    package mutating func delivered(adding more: Subscribers.Demand, from id: Int)
        -> (forward: (any Subscription)?, toSender: Bool, next: Next)
    {
        var forward: (any Subscription)?
        if more != .none {
            demand += more
            if !isTerminal { forward = currentSubscription }
        }
        return (forward, forward != nil && current == id, next())
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
        if buffer.isEmpty, current == nil, upstreamFinished {
            isTerminal = true
            return .complete(.finished)
        }
        return .idle
    }

    /// An inner completed; ignored unless it is the current one.
    @inlinable
    package mutating func innerCompleted(_ id: Int, _ completion: Subscribers.Completion<Failure>) -> Effects {
        guard !isTerminal, current == id else { return Effects() }
        // Apple's Combine traps on an inner publisher completing before its subscription.
        precondition(currentSubscription != nil, "switchToLatest(): an inner publisher completed before sending its subscription")
        current = nil
        currentSubscription = nil
        switch completion {
        case .finished:
            return finishIfDone()
        case .failure(let error):
            return fail(error)
        }
    }

    // MARK: Downstream

    /// The downstream requested `more`. Returns the current inner's subscription to forward it to
    /// and, if a waiting value can go now, that value: the caller then holds the delivering role.
    @inlinable
    package mutating func request(_ more: Subscribers.Demand)
        -> (forward: (any Subscription)?, start: (value: Output, inner: Int)?)
    {
        guard !isTerminal else { return (nil, nil) }
        demand += more
        let forward = currentSubscription
        guard !isDelivering, let first = buffer.popFirst() else { return (forward, nil) }
        demand -= 1
        isDelivering = true
        return (forward, first)
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

    @inlinable
    mutating func finishIfDone() -> Effects {
        guard !isDelivering, buffer.isEmpty, current == nil, upstreamFinished else { return Effects() }
        isTerminal = true
        return Effects(completion: .finished)
    }

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

    @inlinable
    mutating func releaseAll() -> ContiguousArray<any Subscription> {
        // The inner first, then the upstream, as Apple's Combine cancels them.
        var cancel = ContiguousArray<any Subscription>()
        if let currentSubscription { cancel.append(currentSubscription) }
        if let upstream { cancel.append(upstream) }
        upstream = nil
        current = nil
        currentSubscription = nil
        buffer.removeAll()
        return cancel
    }
}
