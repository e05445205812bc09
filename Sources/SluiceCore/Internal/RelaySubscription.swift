/// Told when a ``RelaySubscription`` it owns is cancelled by its subscriber.
@usableFromInline
protocol RelayOwner: AnyObject, Sendable {
    /// The subscriber of one of the owner's relays cancelled (called once, outside any lock).
    func relayCancelled()
}

/// A subscription that passes events and demand through unchanged, between an upstream that
/// serves each subscriber separately (a subject, a connectable publisher) and one subscriber: the
/// per-subscriber subscription of `multicast` ("Multicast") and of `autoconnect()`.
///
/// - Demand: every request goes upstream unchanged (`request(.none)` is ignored: Apple's Combine
///   does not trap there); the demand the subscriber returns from `receive(_:)` goes back
///   upstream — for "Multicast" as a request of its own (`receive(_:)` returning `.none`), as
///   Apple's Combine does, otherwise as `receive(_:)`'s result.
/// - `cancel()` cancels the upstream subscription, releases the subscriber and tells the owner
///   (once); a completion releases the subscriber and the owner without telling it. Idempotent and
///   thread-safe; never calls out while holding its lock.
/// - `description` is `name`, or, when `name` is `nil`, that of the upstream subscription. A named
///   relay's mirror has no children (as Apple's "Multicast" subscription).
@usableFromInline
final class RelaySubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    // Guarded by `lock`:
    @usableFromInline var downstream: Downstream?
    @usableFromInline var upstream = UpstreamStatus()
    /// Held until the subscriber cancels (then told) or completes (then released untold).
    @usableFromInline var owner: (any RelayOwner)?
    /// The description; `nil` until the upstream subscription arrives when it is to be taken
    /// from there.
    @usableFromInline var name: String?
    /// Whether `name` is taken from the upstream subscription.
    @usableFromInline let describesUpstream: Bool

    /// A relay for `downstream`, named `name` (or after its upstream subscription when `nil`).
    @inlinable
    init(downstream: Downstream, name: String?, owner: (any RelayOwner)? = nil) {
        self.downstream = downstream
        self.name = name
        self.owner = owner
        describesUpstream = name == nil
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let upstreamName = describesUpstream ? String(describing: subscription) : nil
        let target = lock.withLock { () -> Downstream? in
            guard let downstream, upstream.attach(subscription) else { return nil }
            if let upstreamName { name = upstreamName }
            return downstream
        }
        guard let target else {
            subscription.cancel()
            return
        }
        target.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        guard let target = lock.withLock({ upstream.subscription == nil ? nil : downstream }) else { return .none }
        let more = target.receive(input)
        guard !describesUpstream else { return more }
        if more > .none { lock.withLock { upstream.subscription }?.request(more) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        let (target, released) = lock.withLock { () -> (Downstream?, (any RelayOwner)?) in
            guard upstream.finish() else { return (nil, nil) }
            defer {
                downstream = nil
                owner = nil
            }
            return (downstream, owner)
        }
        _ = released  // released outside the lock, untold
        target?.receive(completion: completion)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        lock.withLock { upstream.subscription }?.request(demand)
    }

    @inlinable
    func cancel() {
        let (subscription, owner, released) = lock.withLock {
            () -> ((any Subscription)?, (any RelayOwner)?, Downstream?) in
            defer {
                downstream = nil
                self.owner = nil
            }
            return (upstream.detach(), self.owner, downstream)
        }
        subscription?.cancel()
        _ = released  // released here, outside the lock
        owner?.relayCancelled()
    }

    @usableFromInline var description: String { lock.withLock { name } ?? "Relay" }
    @usableFromInline var customMirror: Mirror {
        if !describesUpstream { return Mirror(self, children: [:]) }
        return Mirror(self, children: ["downstream": lock.withLock { downstream } as Any])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
