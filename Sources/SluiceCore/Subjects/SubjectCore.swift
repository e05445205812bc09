import Synchronization

/// The one mechanism behind every subject-like publisher (`PassthroughSubject`,
/// `CurrentValueSubject`, `@Published`'s publisher, `ObservableObjectPublisher`): the list of
/// subscriptions, the terminal completion replayed to late subscribers, the upstream subscriptions
/// handed over by `send(subscription:)`, and — for the current-value kinds — the current value.
///
/// Thread-safe. The lock guards only this object's fields; values are delivered to a snapshot of
/// the subscriptions after it is released, each subscription serialising its own deliveries.
///
/// Membership costs O(1) amortised, whatever the number of subscribers: the subscriptions sit in
/// a ``SlotList``, in subscription order. A send iterates a snapshot of its slots (one retain,
/// nothing copied): a subscription cancelled meanwhile is skipped by its own state, one added
/// meanwhile is not in the snapshot. A cancel or a subscribe while a send holds the snapshot
/// copies the array once, which that send's own O(N) pays for.
///
/// While it has subscribers, the core keeps its subject (``owner``) alive, as Apple's subscriptions
/// keep their subject: a subject referenced only by its subscribers still reaches them. It lets go
/// when the last one cancels or at completion.
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
    var conduits = SlotList<SubjectConduit<Output, Failure>>()

    /// The subject that owns this core, set once by the subject's initialiser (`nil` for the kinds
    /// whose subscriptions do not keep their publisher alive). Unowned: the subject owns the core.
    @exclusivity(unchecked) @usableFromInline
    unowned(unsafe) var owner: AnyObject?

    /// ``owner``, held strongly while the core has subscribers.
    @exclusivity(unchecked) @usableFromInline
    var keepAlive: AnyObject?

    @exclusivity(unchecked) @usableFromInline
    var completion: Subscribers.Completion<Failure>?

    /// The current value of a current-value subject; `nil` for pass-through kinds.
    @exclusivity(unchecked) @usableFromInline
    var current: Output?

    @exclusivity(unchecked) @usableFromInline
    var upstreams: [any Subscription] = []

    /// Whether subscriptions keep the latest value that found no demand and deliver it when demand
    /// arrives (current-value semantics), or drop it (pass-through semantics).
    @usableFromInline
    let replaysCurrentValue: Bool

    /// Which subject-like publisher this core serves (the name subscriptions report in
    /// `description`, whether they ignore demand).
    @usableFromInline
    let kind: SubjectKind

    /// The name subscriptions report in `description` (Apple's: "PassthroughSubject"...).
    @usableFromInline
    var name: String { kind.name }

    /// Whether subscriptions ignore demand and receive every value (`ObservableObjectPublisher`).
    @usableFromInline
    let ignoresDemand: Bool

    /// Set once a downstream subscriber has requested demand (from the start for the
    /// current-value kinds): from then on upstream subscriptions are asked for `.unlimited`.
    @usableFromInline
    let downstreamDemandSeen: Atomic<Bool>

    @inlinable
    init(kind: SubjectKind, currentValue: Output?) {
        self.kind = kind
        let ignoresDemand = kind == .observableObject
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
        let snapshot = lock.withLock { () -> ContiguousArray<SubjectConduit<Output, Failure>?>? in
            current = value
            guard completion == nil else { return nil }
            return conduits.slots
        }
        guard let snapshot else { return }
        Self.offer(value, to: snapshot)
    }

    /// Sends `value` to every subscriber that has demand. When `storingFirst`, the current value is
    /// updated before delivery (CurrentValueSubject); otherwise the caller stores it afterwards
    /// (`@Published`, which publishes in `willSet`).
    @inlinable
    func send(_ value: Output, storingFirst: Bool = true) {
        let snapshot = lock.withLock { () -> ContiguousArray<SubjectConduit<Output, Failure>?>? in
            guard completion == nil else { return nil }
            if replaysCurrentValue && storingFirst { current = value }
            return conduits.slots
        }
        guard let snapshot else { return }
        Self.offer(value, to: snapshot)
    }

    /// Offers `value` to the subscriptions of `snapshot`, skipping its empty slots.
    ///
    /// The snapshot keeps each subscription alive while the loop runs, so the loop reaches them
    /// without retaining each one: it reads each slot's bits (an empty slot is a null reference)
    /// and calls through an unretained reference. A plain `for case let conduit?` loop retains
    /// and releases every subscription it visits: about 40 instructions per subscriber per send.
    @inlinable
    static func offer(_ value: Output, to snapshot: ContiguousArray<SubjectConduit<Output, Failure>?>) {
        snapshot.withUnsafeBufferPointer { slots in
            let bytes = UnsafeRawBufferPointer(slots)
            for index in 0..<slots.count {
                let bits = bytes.load(fromByteOffset: index &* MemoryLayout<UInt>.stride, as: UInt.self)
                guard let pointer = UnsafeRawPointer(bitPattern: bits) else { continue }
                Unmanaged<SubjectConduit<Output, Failure>>.fromOpaque(pointer)._withUnsafeGuaranteedRef {
                    $0.offer(value)
                }
            }
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
    ///
    /// Inlinable so that it runs specialised for the subject's types: unspecialised, taking the
    /// subscriptions out under the lock looked up the generic metadata of the array and the tuple
    /// on every call (about 2,300 instructions for a subject with one subscriber).
    @inlinable
    func send(completion: Subscribers.Completion<Failure>) {
        let released = lock.withLock {
            () -> (ContiguousArray<SubjectConduit<Output, Failure>?>, [any Subscription], AnyObject?)? in
            guard self.completion == nil else { return nil }
            self.completion = completion
            defer {
                self.upstreams = []
                keepAlive = nil
            }
            return (conduits.removeAll(), self.upstreams, keepAlive)
        }
        guard let released else { return }
        let boxed = Boxed(completion)
        for case let conduit? in released.0 {
            conduit.finish(boxed)
        }
        // The upstreams and the subject are released here, outside the lock (the subject's deinit
        // takes it).
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
            if keepAlive == nil { keepAlive = owner }
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

    /// How many subscriptions are attached.
    var subscriptionCount: Int {
        lock.withLock { conduits.count }
    }

    /// Forgets a cancelled subscription, in O(1) amortised (see ``SlotList``). Lets go of the
    /// subject when it was the last one.
    @inlinable
    func remove(_ conduit: SubjectConduit<Output, Failure>) {
        let released = lock.withLock { () -> AnyObject? in
            guard conduits.remove(conduit), conduits.isEmpty else { return nil }
            defer { keepAlive = nil }
            return keepAlive
        }
        _ = released  // the subject, released outside the lock (its deinit takes it)
    }
}

/// The subject-like publishers built on ``SubjectCore``: each one's name, as its subscriptions
/// describe themselves, and whether they ignore demand.
@usableFromInline
enum SubjectKind: UInt8, Sendable {
    /// `PassthroughSubject`.
    case passthrough
    /// `CurrentValueSubject`.
    case currentValue
    /// `@Published`'s publisher.
    case published
    /// `ObservableObjectPublisher`, whose subscriptions ignore demand.
    case observableObject

    /// Apple's name for the subscriptions of this kind.
    @usableFromInline
    var name: String {
        switch self {
        case .passthrough: "PassthroughSubject"
        case .currentValue: "CurrentValueSubject"
        case .published: "PublishedSubject"
        case .observableObject: "ObservableObjectPublisher"
        }
    }
}

/// A subject of this package, which keeps the upstream subscriptions handed to it and can drop one
/// whose bridge (``Publisher/subscribe(_:)-570jv``) has been cancelled.
@usableFromInline
package protocol UpstreamKeepingSubject: AnyObject {
    /// Drops `subscription` from the upstream subscriptions kept.
    func forgetUpstream(_ subscription: AnyObject)
}
