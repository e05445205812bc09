import Synchronization

/// The one mechanism behind every subject-like publisher (`PassthroughSubject`,
/// `CurrentValueSubject`, `@Published`'s publisher, `ObservableObjectPublisher`): the list of
/// subscriptions, the terminal completion replayed to late subscribers, the upstream subscriptions
/// handed over by `send(subscription:)`, and — for the current-value kinds — the current value.
///
/// Thread-safe. The lock guards only this object's fields; values are delivered to a snapshot of
/// the subscriptions after it is released, each subscription serialising its own deliveries.
///
/// Upstream subscriptions handed over by `send(subscription:)` are asked for `.unlimited` once a
/// downstream subscriber has requested demand (at once for the current-value kinds), as Apple's
/// subjects do; the owning subject cancels them when it is deallocated.
@usableFromInline
final class SubjectCore<Output, Failure: Error>: CustomStringConvertible, @unchecked Sendable {
    @usableFromInline
    let lock = Lock()

    // The mutable fields are only touched with `lock` held: their exclusivity is explicit, so they
    // skip the runtime exclusivity checks.
    @exclusivity(unchecked) @usableFromInline
    var conduits = ContiguousArray<SubjectConduit<Output, Failure>>()

    @exclusivity(unchecked) @usableFromInline
    var completion: Subscribers.Completion<Failure>?

    /// The current value of a current-value subject; `nil` for pass-through kinds.
    @exclusivity(unchecked) @usableFromInline
    var current: Output?

    var upstreams: [any Subscription] = []

    /// Whether subscriptions keep the latest value that found no demand and deliver it when demand
    /// arrives (current-value semantics), or drop it (pass-through semantics).
    @usableFromInline
    let replaysCurrentValue: Bool

    /// The name subscriptions report in `description` (Apple's: "PassthroughSubject"...).
    @usableFromInline
    let name: String

    /// Whether subscriptions ignore demand and receive every value (`ObservableObjectPublisher`).
    @usableFromInline
    let ignoresDemand: Bool

    /// Set once a downstream subscriber has requested demand (from the start for the
    /// current-value kinds): from then on upstream subscriptions are asked for `.unlimited`.
    @usableFromInline
    let downstreamDemandSeen: Atomic<Bool>

    @inlinable
    init(name: String, currentValue: Output?, ignoresDemand: Bool = false) {
        self.name = name
        current = currentValue
        replaysCurrentValue = currentValue != nil
        self.ignoresDemand = ignoresDemand
        downstreamDemandSeen = Atomic(currentValue != nil)
    }

    /// The subject's name, as the subscriptions' mirrors show their parent.
    @usableFromInline
    var description: String { name }

    /// Called when a subscriber requests demand while ``downstreamDemandSeen`` is not yet set:
    /// sets it and asks the upstream subscriptions kept so far for `.unlimited`.
    @usableFromInline
    func downstreamDemandArrived() {
        let pending = lock.withLock { () -> [any Subscription] in
            guard !downstreamDemandSeen.load(ordering: .relaxed) else { return [] }
            downstreamDemandSeen.store(true, ordering: .relaxed)
            return upstreams
        }
        for subscription in pending {
            subscription.request(.unlimited)
        }
    }

    /// Cancels and forgets the upstream subscriptions (the owning subject is going away).
    func cancelUpstreams() {
        let cancelled = lock.withLock { () -> [any Subscription] in
            defer { upstreams = [] }
            return upstreams
        }
        for subscription in cancelled {
            subscription.cancel()
        }
    }

    /// Sets the current value even after completion (as Apple's `CurrentValueSubject.value`
    /// setter does), and publishes it unless completed.
    @inlinable
    func setValue(_ value: Output) {
        let snapshot = lock.withLock { () -> ContiguousArray<SubjectConduit<Output, Failure>>? in
            current = value
            guard completion == nil else { return nil }
            return conduits
        }
        guard let snapshot else { return }
        for conduit in snapshot {
            conduit.offer(value)
        }
    }

    /// Sends `value` to every subscriber that has demand. When `storingFirst`, the current value is
    /// updated before delivery (CurrentValueSubject); otherwise the caller stores it afterwards
    /// (`@Published`, which publishes in `willSet`).
    @inlinable
    func send(_ value: Output, storingFirst: Bool = true) {
        let snapshot = lock.withLock { () -> ContiguousArray<SubjectConduit<Output, Failure>>? in
            guard completion == nil else { return nil }
            if replaysCurrentValue && storingFirst { current = value }
            return conduits
        }
        guard let snapshot else { return }
        for conduit in snapshot {
            conduit.offer(value)
        }
    }

    /// Replaces the current value without publishing it.
    @inlinable
    func store(_ value: Output) {
        lock.withLock { current = value }
    }

    /// The current value (current-value kinds only).
    @inlinable
    var currentValue: Output {
        lock.withLock { current! }
    }

    /// Sends the completion to every subscriber, once; later calls are ignored.
    func send(completion: Subscribers.Completion<Failure>) {
        let (snapshot, upstreams) = lock.withLock { () -> (ContiguousArray<SubjectConduit<Output, Failure>>, [any Subscription])? in
            guard self.completion == nil else { return nil }
            self.completion = completion
            defer {
                conduits = []
                self.upstreams = []
            }
            return (conduits, self.upstreams)
        } ?? ([], [])
        _ = upstreams  // released outside the lock
        for conduit in snapshot {
            conduit.finish(completion)
        }
    }

    /// Keeps an upstream subscription while the subject lives, requesting `.unlimited` from it
    /// at once if a subscriber has already requested demand (otherwise when one does); cancels it
    /// if the subject has already completed.
    func send(subscription: any Subscription) {
        let accepted = lock.withLock { () -> Bool? in
            guard completion == nil else { return nil }
            upstreams.append(subscription)
            return downstreamDemandSeen.load(ordering: .relaxed)
        }
        switch accepted {
        case true?: subscription.request(.unlimited)
        case false?: break
        case nil: subscription.cancel()
        }
    }

    /// Forgets an upstream subscription handed over by `send(subscription:)` (its bridge was
    /// cancelled), so that a subject connected and disconnected repeatedly does not accumulate them.
    func forget(upstream subscription: AnyObject) {
        let removed = lock.withLock { () -> [any Subscription] in
            let kept = upstreams.filter { ($0 as AnyObject) !== subscription }
            defer { upstreams = kept }
            return upstreams
        }
        _ = removed  // released outside the lock
    }

    /// Attaches a subscriber. A subscriber arriving after completion gets the empty subscription
    /// and the completion at once.
    @inlinable
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = lock.withLock { () -> SubjectSubscription<S>? in
            guard completion == nil else { return nil }
            let conduit = SubjectSubscription(core: self, downstream: subscriber, pending: current)
            conduits.append(conduit)
            return conduit
        }
        guard let conduit else {
            subscriber.receive(subscription: Subscriptions.empty)
            if let completion = lock.withLock({ completion }) {
                subscriber.receive(completion: completion)
            }
            return
        }
        subscriber.receive(subscription: conduit)
        conduit.subscriptionDelivered()
    }

    /// Forgets a cancelled subscription.
    @inlinable
    func remove(_ conduit: SubjectConduit<Output, Failure>) {
        let removed = lock.withLock { () -> SubjectConduit<Output, Failure>? in
            guard let index = conduits.firstIndex(where: { $0 === conduit }) else { return nil }
            return conduits.remove(at: index)
        }
        _ = removed
    }
}

/// A subject of this package, which keeps the upstream subscriptions handed to it and can drop one
/// whose bridge (``Publisher/subscribe(_:)-570jv``) has been cancelled.
@usableFromInline
package protocol UpstreamKeepingSubject: AnyObject {
    /// Drops `subscription` from the upstream subscriptions kept.
    func forgetUpstream(_ subscription: AnyObject)
}
