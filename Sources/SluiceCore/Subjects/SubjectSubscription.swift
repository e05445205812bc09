import Synchronization

/// A subject's view of one subscription: the erased interface `SubjectCore` delivers through.
@usableFromInline
class SubjectConduit<Output, Failure: Error>: SlotListElement, @unchecked Sendable {
    /// The subscription's `offer`, as a closure made where the subscriber's type is concrete, so
    /// that it runs specialised (an overridden method of a generic class would run unspecialised).
    @usableFromInline
    let offerEntry: (SubjectConduit, Output) -> Void

    /// The subscription's `request(_:)` (a non-zero demand, no completion), `cancel()` (`.none`,
    /// no completion) and ``finish(_:)`` (a completion), likewise specialised: `request` and
    /// `cancel` arrive through `any Subscription`, and the completion from the subject's
    /// unspecialised code, which would otherwise look up generic metadata (the completion's, the
    /// delivery step's) for every subscription finished. One closure for the three: 32 bytes less
    /// per subscription than one each.
    @usableFromInline
    let controlEntry: (SubjectConduit, Subscribers.Demand, Boxed<Subscribers.Completion<Failure>>?) -> Void

    /// This subscription's slot in the subject's ``SubjectCore/conduits``; guarded by the
    /// subject's lock. Four bytes (four billion subscribers), so that the subclass's one-byte
    /// fields share its eight-byte word.
    @exclusivity(unchecked) @usableFromInline
    var slot: UInt32 = 0

    @inlinable
    init(
        offerEntry: @escaping (SubjectConduit, Output) -> Void,
        controlEntry: @escaping (SubjectConduit, Subscribers.Demand, Boxed<Subscribers.Completion<Failure>>?) -> Void
    ) {
        self.offerEntry = offerEntry
        self.controlEntry = controlEntry
    }

    /// Offers a value: delivered if the subscriber has demand, otherwise dropped (pass-through) or
    /// kept as the latest value to deliver when demand arrives (current-value).
    @inlinable
    final func offer(_ value: Output) { offerEntry(self, value) }

    /// Delivers the completion after any values already accepted. One box serves every
    /// subscription the subject finishes.
    @inlinable
    final func finish(_ completion: Boxed<Subscribers.Completion<Failure>>) { controlEntry(self, .none, completion) }
}

/// One subscriber's subscription to a subject, with its own demand.
///
/// Deliveries to the subscriber are serialised without holding a lock while calling out: the
/// thread that finds the subscription idle delivers; a value accepted while another delivery is
/// in progress (another thread's, or a re-entrant send from inside `receive`) is queued and
/// delivered by that thread, in order, as soon as the current `receive` returns. As Apple's, demand
/// requested from inside `receive(subscription:)` is served at once (the current value, a value
/// sent there), before `receive(subscription:)` returns. For `ObservableObjectPublisher`, whose
/// subscriptions ignore demand, the window during which the subscriber is still inside
/// `receive(subscription:)` counts as a delivery, so nothing can reach it before its subscription.
@usableFromInline
final class SubjectSubscription<S: Subscriber>: SubjectConduit<S.Input, S.Failure>, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Output = S.Input
    @usableFromInline typealias Failure = S.Failure

    // The fields are laid out smallest first, so that the one-byte ones fill the space the
    // superclass leaves before the next eight-byte boundary: a subscription is 128 bytes.

    /// Who delivers, readable without the lock: ``delivering`` while a thread delivers (from the
    /// start: the subscriber is inside `receive(subscription:)`), plus ``attention`` once another
    /// thread, holding the lock, has left it work (a queued value, demand, a completion). Set only
    /// under the lock; the one change made without it is the deliverer's own exit,
    /// `delivering → idle`, which fails if ``attention`` is set. So a delivery whose subscriber
    /// returns no new demand ends with one compare-and-swap instead of a second lock round trip.
    /// Starts idle, or delivering for subscriptions that ignore demand (see the type's comment).
    @usableFromInline let delivery: Atomic<UInt8>
    @usableFromInline static var delivering: UInt8 { 1 }
    @usableFromInline static var attention: UInt8 { 2 }
    @usableFromInline let replaysLatest: Bool
    /// Set while the subject has not yet seen demand from any subscriber (it then asks its
    /// upstream subscriptions for `.unlimited`, see ``SubjectCore/downstreamDemandArrived()``):
    /// this subscription's first request tells it. Clear from the start once the subject has.
    @usableFromInline let announcesDemand: Atomic<Bool>
    /// The kind of subject: its name (``description``), and whether demand is ignored.
    @usableFromInline let kind: SubjectKind

    // The mutable fields are only touched with `lock` held, which makes their exclusivity
    // explicit: they skip the runtime exclusivity checks.
    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var downstream: Boxed<S>?
    @exclusivity(unchecked) @usableFromInline var core: SubjectCore<Output, Failure>?
    @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
    /// Values accepted during a delivery, waiting their turn: `queue[queueHead...]`.
    @exclusivity(unchecked) @usableFromInline var queue = ContiguousArray<Output>()
    @exclusivity(unchecked) @usableFromInline var queueHead = 0
    /// The latest value kept for when demand arrives (current-value kinds): none or one element. An
    /// array rather than an optional so that deinit needs no `Optional<Output>` metadata (see
    /// ``Boxed``), and so that replacing it reuses its storage instead of allocating.
    @exclusivity(unchecked) @usableFromInline var pendingValue = ContiguousArray<Output>()
    @exclusivity(unchecked) @usableFromInline var pendingCompletion: Boxed<Subscribers.Completion<Failure>>?

    /// `ObservableObjectPublisher`'s: demand is ignored (unlimited from the start) and the mirror
    /// shows only the downstream.
    @inlinable
    var ignoresDemand: Bool { kind == .observableObject }

    /// What the delivering thread does next, decided under the lock and done outside it.
    @usableFromInline
    enum Step {
        case value(Output, Boxed<S>)
        case completion(Subscribers.Completion<Failure>, Boxed<S>)
        case idle
    }

    @inlinable @inline(__always)
    init(core: SubjectCore<Output, Failure>, downstream: S, pending: Output?) {
        self.core = core
        self.downstream = Boxed(downstream)
        if let pending { pendingValue.append(pending) }
        replaysLatest = core.replaysCurrentValue
        announcesDemand = Atomic(!core.downstreamDemandSeen.load(ordering: .relaxed))
        kind = core.kind
        let ignoresDemand = core.kind == .observableObject
        if ignoresDemand { demand = .unlimited }
        delivery = Atomic(ignoresDemand ? Self.delivering : 0)
        super.init(
            offerEntry: { conduit, value in
                unsafeDowncast(conduit, to: SubjectSubscription.self).deliver(value)
            },
            controlEntry: { conduit, demand, completion in
                let subscription = unsafeDowncast(conduit, to: SubjectSubscription.self)
                if let completion {
                    subscription.finishSpecialised(completion)
                } else if demand == .none {
                    subscription.cancelSpecialised()
                } else {
                    subscription.requestSpecialised(demand)
                }
            })
    }

    /// `offer(_:)`, specialised (see `SubjectConduit.offerEntry`).
    @inlinable
    func deliver(_ value: Output) {
        let step = lock.withLock { () -> Step in
            guard let downstream else { return .idle }
            guard demand > 0 else {
                if replaysLatest {
                    pendingValue.removeAll(keepingCapacity: true)
                    pendingValue.append(value)
                }
                return .idle
            }
            demand -= 1
            if replaysLatest && !pendingValue.isEmpty { pendingValue.removeAll(keepingCapacity: true) }
            guard claimDelivery() else {
                queue.append(value)
                return .idle
            }
            return .value(value, downstream)
        }
        run(step)
    }

    /// ``SubjectConduit/finish(_:)``, specialised.
    @inlinable
    func finishSpecialised(_ completion: Boxed<Subscribers.Completion<Failure>>) {
        let step = lock.withLock { () -> Step in
            guard let downstream else { return .idle }
            guard claimDelivery() else {
                pendingCompletion = completion
                return .idle
            }
            return terminate(with: completion.value, downstream)
        }
        run(step)
    }

    /// Tells the subject, once, that a subscriber has requested demand.
    @usableFromInline
    func announceDemand() {
        guard announcesDemand.exchange(false, ordering: .relaxed) else { return }
        guard let parent = lock.withLock({ core }), !parent.downstreamDemandSeen.load(ordering: .relaxed) else { return }
        parent.downstreamDemandArrived()
    }

    /// Called by the core once `receive(subscription:)` has returned: ends the initial "delivery"
    /// of a subscription that ignores demand (the others start idle).
    @inlinable
    func subscriptionDelivered() {
        guard ignoresDemand else { return }
        run(lock.withLock { nextStep() })
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        controlEntry(self, demand, nil)
    }

    @inlinable
    func cancel() {
        controlEntry(self, .none, nil)
    }

    @inlinable
    func requestSpecialised(_ demand: Subscribers.Demand) {
        let step = lock.withLock { () -> Step in
            guard let downstream else { return .idle }
            self.demand += demand
            // As Apple's, a request (unlike demand returned from `receive(_:)`) delivers the latest
            // value kept for want of demand: now, or after the values already queued.
            if let value = pendingValue.first {
                // Its storage goes too: kept, it would stay for the subscription's lifetime (a
                // current-value subscription starts with its subject's value kept here).
                pendingValue = []
                self.demand -= 1
                guard claimDelivery() else {
                    queue.append(value)
                    return .idle
                }
                return keepDelivering(value, downstream)
            }
            guard claimDelivery() else { return .idle }
            return nextStep()
        }
        if _slowPath(announcesDemand.load(ordering: .relaxed)) { announceDemand() }
        run(step)
    }

    @inlinable
    func cancelSpecialised() {
        let released = lock.withLock { () -> (SubjectCore<Output, Failure>?, Boxed<S>?, ContiguousArray<Output>, ContiguousArray<Output>) in
            defer {
                core = nil
                downstream = nil
                queue = []
                queueHead = 0
                pendingValue = []
                pendingCompletion = nil
            }
            return (core, downstream, queue, pendingValue)
        }
        released.0?.remove(self)
    }

    /// With the lock held: makes the calling thread the deliverer (`true`), or, when another
    /// thread is delivering, flags ``attention`` so that it looks at the state again before it
    /// stops (`false`).
    @inlinable
    func claimDelivery() -> Bool {
        var state = delivery.load(ordering: .acquiring)
        while true {
            if state & Self.delivering == 0 {
                // Only a thread holding the lock sets `delivering`: no one can race this store.
                delivery.store(Self.delivering, ordering: .relaxed)
                return true
            }
            if state & Self.attention != 0 { return false }
            let (exchanged, original) = delivery.compareExchange(
                expected: state, desired: state | Self.attention, ordering: .acquiringAndReleasing)
            if exchanged { return false }
            state = original  // the deliverer left meanwhile
        }
    }

    /// Decides the next step of a delivery in progress. Called by the deliverer with the lock held;
    /// marks the subscription idle when there is nothing left to do.
    @inlinable
    func nextStep() -> Step {
        guard let downstream else {
            delivery.store(0, ordering: .releasing)
            return .idle
        }
        if queueHead < queue.count {
            let value = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            return keepDelivering(value, downstream)
        }
        if let completion = pendingCompletion {
            return terminate(with: completion.value, downstream)
        }
        delivery.store(0, ordering: .releasing)
        return .idle
    }

    /// With the lock held: the deliverer's next value. ``attention`` stays set while more work
    /// waits, so that the deliverer comes back under the lock after this value.
    @inlinable
    func keepDelivering(_ value: Output, _ downstream: Boxed<S>) -> Step {
        let more = queueHead < queue.count || pendingCompletion != nil
        delivery.store(more ? Self.delivering | Self.attention : Self.delivering, ordering: .relaxed)
        return .value(value, downstream)
    }

    /// Moves to the terminal state (with the lock held) and returns the completion step.
    @inlinable
    func terminate(with completion: Subscribers.Completion<Failure>, _ downstream: Boxed<S>) -> Step {
        self.downstream = nil
        core = nil
        pendingValue = []
        pendingCompletion = nil
        delivery.store(0, ordering: .releasing)
        return .completion(completion, downstream)
    }

    /// Performs steps until the subscription is idle. Called without the lock.
    @inlinable
    func run(_ first: Step) {
        var step = first
        while true {
            switch consume step {
            case .idle:
                return
            case .completion(let completion, let downstream):
                downstream.value.receive(completion: completion)
                return
            case .value(let value, let downstream):
                let more = downstream.value.receive(value)
                if more == .none,
                   delivery.compareExchange(expected: Self.delivering, desired: 0,
                                            ordering: .acquiringAndReleasing).exchanged
                {
                    return  // nothing needed attention meanwhile
                }
                step = lock.withLock {
                    demand += more
                    return nextStep()
                }
            }
        }
    }

    /// The subject's name: `"PassthroughSubject"`, `"CurrentValueSubject"`...
    @usableFromInline
    var description: String { kind.name }
    /// As Apple's: `parent` and `subject` (the subject, `nil` once cancelled or completed),
    /// `downstream` and `demand`; only `downstream` for `ObservableObjectPublisher`.
    @usableFromInline
    var customMirror: Mirror {
        let (downstream, demand, core) = lock.withLock { (self.downstream, self.demand, self.core) }
        if ignoresDemand {
            return Mirror(self, children: ["downstream": downstream?.value as Any])
        }
        return Mirror(self, children: [
            "parent": core as Any, "downstream": downstream?.value as Any, "demand": demand, "subject": core as Any,
        ])
    }
    @usableFromInline
    var playgroundDescription: Any { description }
}
