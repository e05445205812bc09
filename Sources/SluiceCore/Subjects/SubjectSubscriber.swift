/// Connects an upstream publisher to a subject (``Publisher/subscribe(_:)-(S)``, and each
/// connection of a ``Publishers/Multicast``): it hands the subject a subscription (itself) through
/// which the subject requests demand, forwards values and the completion, and cancels upstream when
/// its `AnyCancellable` is cancelled.
///
/// As Apple's Combine: a completion that arrives before the upstream subscription is ignored. A
/// multicast's connection holds its subject weakly (``init(weakly:)``): it does not keep the subject
/// alive, the multicast and the subject's subscribers do.
final class SubjectSubscriber<S: Subject>: Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = S.Output
    typealias Failure = S.Failure

    private let lock = Lock()
    // Guarded by `lock`; at most one of the two is set.
    private var subject: S?
    private weak var weakSubject: S?
    private var upstream = UpstreamStatus()

    /// A bridge that keeps `subject` alive until it is cancelled or completes.
    init(_ subject: S) {
        self.subject = subject
    }

    /// A bridge that does not keep `subject` alive.
    init(weakly subject: S) {
        weakSubject = subject
    }

    /// The subject, if it is still there. Call with the lock held.
    private var target: S? { subject ?? weakSubject }

    func receive(subscription: any Subscription) {
        let (accepted, subject) = lock.withLock { (upstream.attach(subscription), target) }
        guard accepted, let subject else { return subscription.cancel() }
        subject.send(subscription: self)
    }

    func receive(_ input: S.Output) -> Subscribers.Demand {
        lock.withLock { upstream.isTerminal ? nil : target }?.send(input)
        return .none
    }

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

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { upstream.subscription }?.request(demand)
    }

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

    var description: String { "Subject" }
    var customMirror: Mirror {
        let (subject, upstream) = lock.withLock { (target, self.upstream.subscription) }
        return Mirror(self, children: ["downstreamSubject": subject as Any, "upstreamSubscription": upstream as Any])
    }
    var playgroundDescription: Any { description }
}
