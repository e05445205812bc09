/// Connects an upstream publisher to a subject (``Publisher/subscribe(_:)-(S)``): it hands the
/// subject a subscription (itself) through which the subject requests demand, forwards values and
/// the completion, and cancels upstream when its `AnyCancellable` is cancelled.
final class SubjectSubscriber<S: Subject>: Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = S.Output
    typealias Failure = S.Failure

    private let lock = Lock()
    private var subject: S?
    private var upstream = UpstreamStatus()

    init(_ subject: S) {
        self.subject = subject
    }

    func receive(subscription: any Subscription) {
        let (accepted, subject) = lock.withLock { (upstream.attach(subscription), self.subject) }
        guard accepted, let subject else { return subscription.cancel() }
        subject.send(subscription: self)
    }

    func receive(_ input: S.Output) -> Subscribers.Demand {
        lock.withLock { upstream.isTerminal ? nil : subject }?.send(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<S.Failure>) {
        let subject = lock.withLock { () -> S? in
            guard upstream.finish() else { return nil }
            defer { self.subject = nil }
            return self.subject
        }
        subject?.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { upstream.subscription }?.request(demand)
    }

    func cancel() {
        let (subscription, subject) = lock.withLock { () -> ((any Subscription)?, S?) in
            defer { self.subject = nil }
            return (upstream.detach(), self.subject)
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
        let (subject, upstream) = lock.withLock { (self.subject, self.upstream.subscription) }
        return Mirror(self, children: ["downstreamSubject": subject as Any, "upstreamSubscription": upstream as Any])
    }
    var playgroundDescription: Any { description }
}
