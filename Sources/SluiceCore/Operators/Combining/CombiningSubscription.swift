/// The one subscription behind `combineLatest` and `zip` of every arity: the downstream's
/// `Subscription`, fed by one ``CombiningInner`` subscriber per upstream.
///
/// A thin class around ``CombiningState`` (which decides everything) and the package ``Lock``: each
/// entry point takes the lock, runs one transition, releases the lock, then performs what the
/// transition decided — cancel or request upstream, deliver downstream. Deliveries are serialised
/// by the state's `isDelivering` flag, never by holding the lock while calling out, so a downstream
/// may request, cancel, or send into an upstream subject from inside `receive(_:)`.
///
/// Use: create it, attach every upstream with `receive(subscriber: CombiningInner<Lane, ...>(...))`,
/// then call ``start(_:)``. `description` is the `name` given ("CombineLatest", "Zip").
@usableFromInline
final class CombiningSubscription<Storage: CombiningStorage, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Storage.Output {
    /// The state holds the downstream boxed: each step carries it, and copying a box is a retain,
    /// where copying a subscriber that is a struct (a `map` after `zip`) went through outlined
    /// copies of every field, several times per value.
    @usableFromInline typealias State = CombiningState<Storage, Downstream.Failure, Boxed<Downstream>>
    @usableFromInline typealias Step = CombiningStep<Storage.Output, Downstream.Failure, Boxed<Downstream>>

    @usableFromInline let lock = Lock()
    /// Only touched with `lock` held, which makes its exclusivity explicit.
    @exclusivity(unchecked) @usableFromInline var state: State
    @usableFromInline let name: String
    /// Leads `request(_:)`, which arrives through `any Subscription` and so runs unspecialised, into
    /// the code specialised where `init` ran (as ``SubjectSubscription/requestEntry`` does): under
    /// one-at-a-time demand, every value would otherwise look up generic metadata.
    @usableFromInline let requestEntry: (CombiningSubscription, Subscribers.Demand) -> Void

    @inlinable
    init(downstream: Downstream, name: String) {
        state = State(target: Boxed(downstream))
        self.name = name
        requestEntry = { $0.requestSpecialised($1) }
    }

    /// Hands the subscription to the downstream (after every upstream was attached), then
    /// delivers what became due meanwhile.
    @inlinable
    func start(_ downstream: Downstream) {
        downstream.receive(subscription: self)
        var calls = CombiningCalls()
        let step = lock.withLock { state.subscriptionDelivered(&calls) }
        calls.perform()
        run(step)
    }

    // MARK: Upstream side

    @inlinable
    func attach(_ subscription: any Subscription, at index: Int) {
        switch lock.withLock({ state.attach(subscription, at: index) }) {
        case .keep:
            break
        case .request(let demand):
            subscription.request(demand)
        case .cancel:
            subscription.cancel()
        }
    }

    /// Returns the demand to return from the upstream's `receive(_:)` (`zip`; see
    /// ``CombiningState``).
    @inlinable
    func receive<L: CombiningLane>(_ value: L.Value, lane: L.Type) -> Subscribers.Demand
    where L.Storage == Storage {
        let step = lock.withLock { state.receive(value, lane: L.self) }
        return run(step)
    }

    @inlinable
    func complete(_ completion: Subscribers.Completion<Downstream.Failure>, at index: Int) {
        var calls = CombiningCalls()
        let step = lock.withLock { state.complete(completion, at: index, &calls) }
        calls.perform()
        run(step)
    }

    // MARK: Downstream side

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        requestEntry(self, demand)
    }

    /// `request(_:)`, specialised (see ``requestEntry``).
    @inlinable
    func requestSpecialised(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        var calls = CombiningCalls()
        let step = lock.withLock { state.request(demand, &calls) }
        if case .idle = step {
            calls.perform()
            return
        }
        // An owed output goes first; the upstreams (possibly synchronous) are asked afterwards,
        // unless the downstream cancelled meanwhile. (Calls made of cancellations — the ending
        // was decided — are made at once.)
        if calls.demand == .none { calls.perform() }
        run(step)
        var live = CombiningCalls()
        lock.withLock { state.liveUpstreams(requesting: demand, &live) }
        live.perform()
    }

    @inlinable
    func cancel() {
        var calls = CombiningCalls()
        let released = lock.withLock { state.cancel(&calls) }
        calls.perform()
        _ = released  // the downstream and the values, released outside the lock
    }

    /// Performs steps until the subscription is idle. Called without the lock. Returns the demand
    /// gathered for the upstream whose value started the delivery (`zip` only; `.none` otherwise).
    @inlinable
    @discardableResult
    func run(_ first: Step) -> Subscribers.Demand {
        var step = first
        var returned = Subscribers.Demand.none
        while true {
            switch consume step {
            case .idle:
                return returned
            case .completion(let completion, let downstream):
                downstream.value.receive(completion: completion)
                return returned
            case .value(let output, let downstream):
                let more = downstream.value.receive(output)
                var calls = CombiningCalls()
                step = lock.withLock { state.delivered(more, &calls) }
                calls.perform()
                returned = calls.returned
            }
        }
    }

    @usableFromInline var description: String { name }
    @usableFromInline var customMirror: Mirror {
        let (downstream, demand) = lock.withLock { (state.target, state.demand) }
        return Mirror(self, children: ["downstream": downstream?.value as Any, "demand": demand])
    }
    @usableFromInline var playgroundDescription: Any { description }
}

/// The subscriber a combining operator attaches to one upstream: forwards the upstream's events,
/// tagged with its lane, to the shared ``CombiningSubscription``.
@usableFromInline
struct CombiningInner<Lane: CombiningLane, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Lane.Storage.Output {
    @usableFromInline typealias Input = Lane.Value
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let subscription: CombiningSubscription<Lane.Storage, Downstream>
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(_ subscription: CombiningSubscription<Lane.Storage, Downstream>) {
        self.subscription = subscription
    }

    @inlinable
    func receive(subscription: any Subscription) {
        self.subscription.attach(subscription, at: Lane.index)
    }

    /// Demand goes upstream through `request`, to every upstream at once; `zip` returns here the
    /// demand meant for this upstream that arrived while the output this value completed was being
    /// delivered (see ``CombiningState``). `combineLatest` returns `.none`.
    @inlinable
    func receive(_ input: Lane.Value) -> Subscribers.Demand {
        subscription.receive(input, lane: Lane.self)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        subscription.complete(completion, at: Lane.index)
    }

    @usableFromInline var description: String { subscription.name }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: ["parent": subscription]) }
    @usableFromInline var playgroundDescription: Any { description }
}
