/// The subscription of `receive(on:)` and `delay(for:)`: it passes the subscription, requests and
/// cancel straight through, and hands each value and the completion to a scheduler (`schedule`
/// says how: at the next opportunity, or after a delay), delivering it downstream when the
/// scheduler runs it. Demand the subscriber returns from `receive(_:)` is requested upstream from
/// there. After a completion, later events are ignored. As Apple's do, each scheduled action holds
/// the subscriber until it runs; a value whose turn comes after a cancel is dropped, while a
/// completion scheduled before the cancel is still delivered. Like Apple's `Delay`, it describes
/// itself by its type name only; `receive(on:)` uses ``DescribedScheduledRelay``.
class ScheduledRelay<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let lock = Lock()
    @exclusivity(unchecked) private var downstream: Downstream?
    @exclusivity(unchecked) private var upstream: (any Subscription)?
    @exclusivity(unchecked) private var completed = false
    private let schedule: (@escaping () -> Void) -> Void

    init(downstream: Downstream, schedule: @escaping (@escaping () -> Void) -> Void) {
        self.downstream = downstream
        self.schedule = schedule
    }

    func receive(subscription: any Subscription) {
        let verdict: SubscriptionVerdict<Downstream> = lock.withLock {
            guard upstream == nil, !completed else { return .reject }
            guard let downstream else { return .ignore }   // cancelled before it came: dropped, as Apple's
            upstream = subscription
            return .accept(downstream)
        }
        switch verdict {
        case .reject: subscription.cancel()
        case .ignore: break
        case .accept(let downstream): downstream.receive(subscription: self)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = lock.withLock({ upstream != nil && !completed ? self.downstream : nil }) else { return .none }
        schedule { [self] in
            guard lock.withLock({ self.downstream != nil }) else { return }   // cancelled meanwhile
            let demand = downstream.receive(input)
            guard demand > .none, let upstream = lock.withLock({ self.downstream == nil ? nil : self.upstream }) else { return }
            upstream.request(demand)
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let downstream = claimCompletion() else { return }
        schedule { [self] in
            detach()
            downstream.receive(completion: completion)
        }
    }

    /// Under the lock: marks the stream completed and returns the subscriber, unless it was
    /// completed, cancelled or never subscribed.
    private func claimCompletion() -> Downstream? {
        lock.withLock {
            guard upstream != nil, !completed else { return nil }
            completed = true
            return downstream
        }
    }

    /// Under the lock: lets go of the subscriber and the upstream.
    private func detach() {
        lock.withLock {
            downstream = nil
            upstream = nil
        }
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock { downstream == nil ? nil : upstream }?.request(demand)
    }

    func cancel() {
        let upstream: (any Subscription)? = lock.withLock {
            guard downstream != nil else { return nil }
            downstream = nil
            defer { self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }

}

/// A ``ScheduledRelay`` that describes itself by name, with no mirror children (`receive(on:)`).
final class DescribedScheduledRelay<Downstream: Subscriber>: ScheduledRelay<Downstream>, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    let description: String

    init(downstream: Downstream, name: String, schedule: @escaping (@escaping () -> Void) -> Void) {
        description = name
        super.init(downstream: downstream, schedule: schedule)
    }

    var playgroundDescription: Any { description }

    var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// What an operator does with a subscription from its upstream.
enum SubscriptionVerdict<Downstream> {
    /// The first one: keep it and hand the downstream its subscription.
    case accept(Downstream)
    /// A second one, or one after completion: cancel it.
    case reject
    /// One that arrives after the downstream cancelled: leave it alone.
    case ignore
}
