/// Connects an upstream publisher to a subject (``Publisher/subscribe(_:)-570jv``, and each
/// connection of a ``Publishers/Multicast``): it hands the subject a subscription (itself) through
/// which the subject requests demand, forwards values and the completion, and cancels upstream when
/// its `AnyCancellable` is cancelled.
///
/// As Apple's Combine: a completion that arrives before the upstream subscription is ignored. A
/// multicast's connection holds its subject weakly (``init(weakly:)``): it does not keep the subject
/// alive, the multicast and the subject's subscribers do.
///
/// Inlinable, so that the client specialises it with the subject and the upstream's subscription to
/// it: unspecialised, each value looked up generic metadata on its way into the subject.
@usableFromInline
final class SubjectSubscriber<S: Subject>: Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = S.Output
    @usableFromInline typealias Failure = S.Failure

    @usableFromInline let lock = Lock()
    // Guarded by `lock` (which makes their exclusivity explicit: they skip the runtime checks); at
    // most one of the first two is set.
    @exclusivity(unchecked) @usableFromInline var subject: S?
    @exclusivity(unchecked) @usableFromInline weak var weakSubject: S?
    @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()

    /// A bridge that keeps `subject` alive until it is cancelled or completes.
    @inlinable
    init(_ subject: S) {
        self.subject = subject
    }

    /// A bridge that does not keep `subject` alive.
    @inlinable
    init(weakly subject: S) {
        weakSubject = subject
    }

    /// The subject, if it is still there. Call with the lock held.
    @inlinable
    var target: S? { subject ?? weakSubject }

    @inlinable
    func receive(subscription: any Subscription) {
        let (accepted, subject) = lock.withLock { (upstream.attach(subscription), target) }
        guard accepted, let subject else { return subscription.cancel() }
        subject.send(subscription: self)
    }

    @inlinable
    func receive(_ input: S.Output) -> Subscribers.Demand {
        lock.withLock { upstream.isTerminal ? nil : target }?.send(input)
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<S.Failure>) {
        let subject = lock.withLock { () -> S? in
            guard upstream.subscription != nil, upstream.finish() else { return nil }
            defer {
                self.subject = nil
                weakSubject = nil
            }
            return target
        }
        subject?.send(completion: completion)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { upstream.subscription }?.request(demand)
    }

    @inlinable
    func cancel() {
        let (subscription, subject) = lock.withLock { () -> ((any Subscription)?, S?) in
            defer {
                self.subject = nil
                weakSubject = nil
            }
            return (upstream.detach(), target)
        }
        subscription?.cancel()
        // Our own subjects keep the subscriptions handed to them until they complete: let go of
        // this one now.
        if subscription != nil, let subject = subject as? any UpstreamKeepingSubject {
            subject.forgetUpstream(self)
        }
    }

    @usableFromInline
    var description: String { "Subject" }
    @usableFromInline
    var customMirror: Mirror {
        let (subject, upstream) = lock.withLock { (target, self.upstream.subscription) }
        return Mirror(self, children: ["downstreamSubject": subject as Any, "upstreamSubscription": upstream as Any])
    }
    @usableFromInline
    var playgroundDescription: Any { description }
}
