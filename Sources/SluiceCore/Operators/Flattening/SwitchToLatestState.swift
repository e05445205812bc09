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
/// - A misbehaving current inner: a value beyond the downstream's demand traps, as in Apple's
///   Combine; one sent before its subscription is delivered (if there is demand) and the
///   downstream's returned demand is returned to it.
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
    /// The inner that was current, still waiting for its subscription, when the upstream failed:
    /// as Apple's Combine, the subscription it sends afterwards is asked for the downstream's
    /// outstanding demand (and not cancelled), though nobody receives what it sends.
    @usableFromInline package var awaitingAfterFailure: Int?
    /// The inner that completed last: as Apple's Combine, a subscription it sends afterwards is
    /// ignored (neither kept nor cancelled).
    @usableFromInline package var lastCompleted: Int?

    /// What to do with an inner's subscription.
    @usableFromInline
    package enum InnerAttachment: Equatable {
        /// Keep it (or leave it running), and request this demand from it (`.none`: nothing yet).
        case request(Subscribers.Demand)
        /// Cancel it: it is no longer current, the current inner already has one, or everything
        /// ended.
        case cancel
        /// Leave it alone: its inner already completed.
        case ignore
    }

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

    /// An inner's subscription arrived: what to do with it (see ``InnerAttachment``).
    @inlinable
    package mutating func attachInner(_ id: Int, _ subscription: any Subscription) -> InnerAttachment {
        if id == lastCompleted { return .ignore }
        if id == awaitingAfterFailure {
            awaitingAfterFailure = nil
            return .request(demand)
        }
        guard !isTerminal, current == id, currentSubscription == nil else { return .cancel }
        currentSubscription = subscription
        return .request(demand)
    }

    /// An inner sent a value: `true` when the caller must deliver it now (it then holds the
    /// delivering role); otherwise it was queued, or dropped (not current, or terminal).
    ///
    /// A value the downstream has not asked for (counting those already waiting) stops the
    /// program, as in Apple's Combine.
    @inlinable
    package mutating func receiveInner(_ value: Output, from id: Int) -> Bool {
        guard !isTerminal, current == id else { return false }
        if isDelivering || !buffer.isEmpty {
            enqueue(value, from: id)
            return false
        }
        if demand == .none { unwantedValue() }
        demand -= 1
        isDelivering = true
        return true
    }

    /// Queues a value that arrived during another delivery (re-entrant, or from another thread).
    @inlinable
    mutating func enqueue(_ value: Output, from id: Int) {
        if demand <= buffer.count { unwantedValue() }
        buffer.append((value, id))
    }

    @usableFromInline @inline(never)
    func unwantedValue() -> Never {
        preconditionFailure("switchToLatest(): an inner publisher sent a value the subscriber did not request")
    }

    /// A value from inner `id` was delivered and the downstream returned `more`. Returns the
    /// current inner's subscription to forward `more` to (`nil`: nothing to forward, or no current
    /// inner subscribed — a new one gets the whole outstanding demand when it subscribes),
    /// `toSender` when that inner is the one that sent the value (the caller may then return `more`
    /// from its `receive(_:)` instead of requesting it — even before the inner's subscription has
    /// arrived, as Apple's Combine does), and what the delivering thread does next.
    @inlinable
    package mutating func delivered(adding more: Subscribers.Demand, from id: Int)
        -> (forward: (any Subscription)?, toSender: Bool, next: Next)
    {
        var forward: (any Subscription)?
        var toSender = false
        if more != .none {
            demand += more
            if !isTerminal {
                forward = currentSubscription
                toSender = current == id
            }
        }
        return (forward, toSender, next())
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
        lastCompleted = id
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
        if let current, currentSubscription == nil { awaitingAfterFailure = current }
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
