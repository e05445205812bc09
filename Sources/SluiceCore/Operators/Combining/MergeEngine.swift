/// The one engine behind every merge (`Merge` … `Merge8`, `MergeMany`): the downstream's
/// subscription, fed by one ``MergeSide`` subscriber per upstream, each tagged with its index.
///
/// A public merge type is a thin wrapper: it creates the engine, hands the downstream its
/// subscription with ``start()``, then attaches each upstream with ``attach(_:at:)`` — in order,
/// so that synchronous upstreams deliver in order (`a`'s values, then `b`'s...).
///
/// The decisions live in the value-type ``MergeState``; this class holds it behind its lock and
/// performs the returned ``MergeAction`` after unlocking, so it never calls downstream or upstream
/// with the lock held. Deliveries are serialised: one thread at a time calls the downstream, and
/// values arriving meanwhile (from other threads, or re-entrantly) are queued and delivered by it.
/// `cancel()` is idempotent and thread-safe; cancelling or completing releases the downstream and
/// every upstream subscription. `description` (what `print()` shows) is "Merge".
@usableFromInline
final class MergeEngine<Downstream: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    // Guarded by `lock`:
    @exclusivity(unchecked) @usableFromInline var state: MergeState<Output, Failure>
    /// Boxed: each step takes the downstream out of the lock, and copying a box is a retain, where
    /// copying a subscriber that is a struct (a `map` after the merge) copied every field.
    @exclusivity(unchecked) @usableFromInline var downstream: Boxed<Downstream>?
    /// Leads `request(_:)`, which arrives through `any Subscription` and so runs unspecialised, into
    /// the code specialised where `init` ran (as ``SubjectSubscription/requestEntry`` does): under
    /// one-at-a-time demand, every value would otherwise look up generic metadata.
    @usableFromInline let requestEntry: (MergeEngine, Subscribers.Demand) -> Void
    /// Leads an upstream's completion into the code specialised where `init` ran. A publisher that
    /// completes its subscribers from code generic over them (a subject's `send(completion:)`)
    /// reaches ``MergeSide`` unspecialised, where every generic type the completion touches (the
    /// state's action, the boxed downstream, tuples of them) is looked up at run time: that cost an
    /// upstream subject's finish ~6,000 instructions.
    @usableFromInline let completionEntry: (MergeEngine, Subscribers.Completion<Failure>, Int) -> Void

    /// Creates the engine for one subscription of `upstreamCount` upstreams.
    @inlinable
    init(downstream: Downstream, upstreamCount: Int) {
        self.downstream = Boxed(downstream)
        state = MergeState(upstreamCount: upstreamCount)
        requestEntry = { $0.requestSpecialised($1) }
        completionEntry = { $0.receiveSpecialised(completion: $1, at: $2) }
    }

    /// Hands the downstream its subscription (before any upstream is attached, so that nothing can
    /// reach it first). A merge of no upstreams then finishes.
    @inlinable
    func start() {
        lock.withLock { downstream }?.value.receive(subscription: self)
        perform { $0.subscribed() }
    }

    /// Subscribes the engine to `upstream` as the upstream at `index` — unless the merge has
    /// already ended (cancelled, or failed by an earlier upstream).
    @inlinable
    func attach<Upstream: Publisher>(_ upstream: Upstream, at index: Int)
    where Upstream.Output == Output, Upstream.Failure == Failure {
        guard lock.withLock({ state.isAcceptingUpstreams }) else { return }
        upstream.attachSubscriber(MergeSide(engine: self, index: index))
    }

    // MARK: Upstream side (through MergeSide)

    @inlinable
    func receive(subscription: any Subscription, at index: Int) {
        let action = lock.withLock { state.attach(subscription, at: index) }
        switch action {
        case .request(let demand): subscription.request(demand)
        case .reject: subscription.cancel()
        default: break
        }
    }

    @inlinable
    func receive(_ value: Output, at index: Int) {
        perform { $0.receive(value, from: index) }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
        completionEntry(self, completion, index)
    }

    /// `receive(completion:at:)`, specialised (see ``completionEntry``).
    @inlinable
    func receiveSpecialised(completion: Subscribers.Completion<Failure>, at index: Int) {
        perform { $0.complete(completion, from: index) }
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
        perform { $0.request(demand) }
    }

    @inlinable
    func cancel() {
        perform { $0.cancel() }
    }

    // MARK: Performing actions

    /// Runs a transition under the lock, then performs its action (and, while it says to deliver,
    /// the following ones) without the lock. The downstream is released in the same locked region
    /// as the transition that ends the merge.
    @inlinable
    func perform(_ transition: (inout MergeState<Output, Failure>) -> MergeAction<Output, Failure>) {
        var (action, target) = lock.withLock { () -> (MergeAction<Output, Failure>, Boxed<Downstream>?) in
            let action = transition(&state)
            return (action, takeDownstream())
        }
        while true {
            switch consume action {
            case .none, .request, .reject:
                return
            case .forward(let forward):
                Self.request(forward)
                return
            case .cancel(let upstreams):
                Self.cancel(upstreams)
                _ = target  // released here, outside the lock, after a cancel
                return
            case .complete(let completion, let upstreams):
                Self.cancel(upstreams)
                target?.value.receive(completion: completion)
                return
            case .deliver(let value, let forward):
                if let forward { Self.request(forward) }
                guard let receiver = target else {
                    // Cancelled before the delivery began: end it.
                    action = lock.withLock { state.delivered(returning: .none) }
                    continue
                }
                let more = receiver.value.receive(value)
                (action, target) = lock.withLock { () -> (MergeAction<Output, Failure>, Boxed<Downstream>?) in
                    let action = state.delivered(returning: more)
                    return (action, takeDownstream())
                }
            }
        }
    }

    /// The downstream to call next, with the lock held: released for good once the merge has
    /// ended (the caller then holds the last reference).
    @inlinable
    func takeDownstream() -> Boxed<Downstream>? {
        guard state.isTerminated else { return downstream }
        defer { downstream = nil }
        return downstream
    }

    @inlinable
    static func request(_ forward: MergeForward) {
        for slot in forward.upstreams {
            slot.subscription?.request(forward.demand)
        }
    }

    @inlinable
    static func cancel(_ upstreams: ContiguousArray<UpstreamStatus>) {
        for slot in upstreams {
            slot.subscription?.cancel()
        }
    }

    @usableFromInline var description: String { "Merge" }
    @usableFromInline var customMirror: Mirror {
        let (downstream, demand) = lock.withLock { (self.downstream, state.demand) }
        return Mirror(self, children: ["downstream": downstream?.value as Any, "demand": demand])
    }
    @usableFromInline var playgroundDescription: Any { description }
}

/// The subscriber a merge attaches to one upstream: passes its events to the ``MergeEngine``,
/// tagged with the upstream's index. Returns no demand from `receive(_:)`: the engine forwards the
/// downstream's demand to every upstream itself.
@usableFromInline
final class MergeSide<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let engine: MergeEngine<Downstream>
    @usableFromInline let index: Int

    @inlinable
    init(engine: MergeEngine<Downstream>, index: Int) {
        self.engine = engine
        self.index = index
    }

    @inlinable
    func receive(subscription: any Subscription) {
        engine.receive(subscription: subscription, at: index)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        engine.receive(input, at: index)
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        engine.receive(completion: completion, at: index)
    }

    @usableFromInline var description: String { "Merge" }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["index": index])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
