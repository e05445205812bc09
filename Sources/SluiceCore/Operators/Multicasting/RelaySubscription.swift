/// A subscription that passes events and demand through unchanged, between an upstream that
/// serves each subscriber separately (a subject) and one subscriber: the per-subscriber
/// subscription of `multicast` ("Multicast").
///
/// - Demand: every request goes upstream unchanged (`request(.none)` is ignored: Apple's Combine
///   does not trap there); the demand the subscriber returns from `receive(_:)` goes back
///   upstream as a request of its own (`receive(_:)` returning `.none`), as Apple's Combine does.
/// - It keeps `keepAlive` (the multicast's subject) alive until it is cancelled or completes, as
///   Apple's subjects are kept alive by their subscriptions: the connection itself does not.
/// - `cancel()` cancels the upstream subscription and releases the subscriber; a completion
///   releases it too. Idempotent and thread-safe; never calls out while holding its lock.
/// - `description` is `name`; its mirror has no children (as Apple's "Multicast" subscription).
@usableFromInline
final class RelaySubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    // Guarded by `lock`, which makes their exclusivity explicit: they skip the runtime checks.
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
    /// Held until the subscriber cancels or completes.
    @exclusivity(unchecked) @usableFromInline var keepAlive: AnyObject?
    /// The description.
    @usableFromInline let name: String

    /// A relay for `downstream`, named `name`, that keeps `keepAlive` alive while it lasts.
    @inlinable
    init(downstream: Downstream, name: String, keepAlive: AnyObject? = nil) {
        self.downstream = downstream
        self.name = name
        self.keepAlive = keepAlive
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let target = lock.withLock { () -> Downstream? in
            guard let downstream, upstream.attach(subscription) else { return nil }
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
        if more > .none { lock.withLock { upstream.subscription }?.request(more) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        let (target, released) = lock.withLock { () -> (Downstream?, AnyObject?) in
            guard upstream.finish() else { return (nil, nil) }
            defer {
                downstream = nil
                keepAlive = nil
            }
            return (downstream, keepAlive)
        }
        target?.receive(completion: completion)
        _ = released  // released here, outside the lock
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        lock.withLock { upstream.subscription }?.request(demand)
    }

    @inlinable
    func cancel() {
        let (subscription, released) = lock.withLock { () -> ((any Subscription)?, (Downstream?, AnyObject?)) in
            defer {
                downstream = nil
                keepAlive = nil
            }
            return (upstream.detach(), (downstream, keepAlive))
        }
        subscription?.cancel()
        _ = released  // released here, outside the lock
    }

    @usableFromInline var description: String { name }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
