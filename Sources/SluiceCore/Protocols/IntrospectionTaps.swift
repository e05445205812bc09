import Synchronization

/// How many `_Introspection` objects are enabled. `subscribe` reads it (one relaxed load) to
/// decide whether to take the introspected path; nothing else on a stream's way reads it.
@usableFromInline
let introspectionEnabledCount = Atomic<Int>(0)

/// Whether any `_Introspection` is enabled: the one check `subscribe` makes.
@inlinable @inline(__always)
var introspectionIsActive: Bool {
    introspectionEnabledCount.load(ordering: .relaxed) != 0
}

/// The enabled introspections, in the order they were enabled.
final class IntrospectionRegistry: @unchecked Sendable {
    static let shared = IntrospectionRegistry()

    private let lock = Lock()
    private var enabled: [any _Introspection] = []

    func enable(_ introspection: any _Introspection) {
        lock.withLock {
            guard !enabled.contains(where: { $0 === introspection }) else { return }
            enabled.append(introspection)
            introspectionEnabledCount.store(enabled.count, ordering: .relaxed)
        }
    }

    func disable(_ introspection: any _Introspection) {
        lock.withLock {
            enabled.removeAll { $0 === introspection }
            introspectionEnabledCount.store(enabled.count, ordering: .relaxed)
        }
    }

    func isEnabled(_ introspection: any _Introspection) -> Bool {
        lock.withLock { enabled.contains { $0 === introspection } }
    }

    /// The introspections enabled now (a copy: they are called without the lock).
    var current: [any _Introspection] {
        guard introspectionIsActive else { return [] }
        return lock.withLock { enabled }
    }
}

/// Marks the forwarding subscriber the introspected `subscribe` puts in front of a subscriber, so
/// that a subscriber already forwarded (an operator passing its subscriber on with `subscribe`) is
/// not wrapped twice.
protocol IntrospectionTap {}

extension Publisher {
    /// How an operator attaches a subscriber of its own to a publisher it subscribes to (its
    /// upstream, an inner or other publisher): `receive(subscriber:)` directly, and while an
    /// introspection is enabled `subscribe`'s introspected path, so that the introspection sees
    /// every stage of a pipeline, as Apple's operators report theirs. One flag check when none is.
    @inlinable @inline(__always)
    func attachSubscriber<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        if _slowPath(introspectionIsActive) {
            subscribeIntrospected(subscriber)
            return
        }
        receive(subscriber: subscriber)
    }

    /// `subscribe` while an introspection is enabled: reports the publisher and subscriber, and
    /// attaches the subscriber behind an ``IntrospectedSubscriber``. A subscriber already behind
    /// one (passed on by an operator) is passed on as it is, and reported as an `AnySubscriber`.
    @usableFromInline
    func subscribeIntrospected<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        if subscriber is any IntrospectionTap {
            let reported = AnySubscriber(subscriber)
            for introspection in IntrospectionRegistry.shared.current {
                introspection.willReceive(publisher: self, subscriber: reported)
            }
            receive(subscriber: subscriber)
            for introspection in IntrospectionRegistry.shared.current {
                introspection.didReceive(publisher: self, subscriber: reported)
            }
            return
        }
        for introspection in IntrospectionRegistry.shared.current {
            introspection.willReceive(publisher: self, subscriber: subscriber)
        }
        receive(subscriber: IntrospectedSubscriber(subscriber))
        for introspection in IntrospectionRegistry.shared.current {
            introspection.didReceive(publisher: self, subscriber: subscriber)
        }
    }
}

/// The subscriber the introspected `subscribe` attaches in place of the given one: forwards every
/// event to it, reporting each to the introspections enabled at that moment, and hands it the
/// subscription behind an ``IntrospectedSubscription``. It shows itself as the subscriber it
/// forwards to (same description and `combineIdentifier`).
struct IntrospectedSubscriber<Downstream: Subscriber>: Subscriber, CustomStringConvertible, IntrospectionTap {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream

    init(_ downstream: Downstream) {
        self.downstream = downstream
    }

    var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

    var description: String { String(describing: downstream) }

    func receive(subscription: any Subscription) {
        let introspections = IntrospectionRegistry.shared.current
        for introspection in introspections {
            introspection.willReceive(subscriber: downstream, subscription: subscription)
        }
        downstream.receive(
            subscription: subscription is IntrospectedSubscription
                ? subscription : IntrospectedSubscription(subscription))
        for introspection in IntrospectionRegistry.shared.current {
            introspection.didReceive(subscriber: downstream, subscription: subscription)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let introspections = IntrospectionRegistry.shared.current
        if introspections.isEmpty { return downstream.receive(input) }
        for introspection in introspections {
            introspection.willReceive(subscriber: downstream, input: input)
        }
        let demand = downstream.receive(input)
        for introspection in IntrospectionRegistry.shared.current {
            introspection.didReceive(subscriber: downstream, input: input, resultingDemand: demand)
        }
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        for introspection in IntrospectionRegistry.shared.current {
            introspection.willReceive(subscriber: downstream, completion: completion)
        }
        downstream.receive(completion: completion)
        for introspection in IntrospectionRegistry.shared.current {
            introspection.didReceive(subscriber: downstream, completion: completion)
        }
    }
}

/// The subscription an ``IntrospectedSubscriber`` hands its subscriber: forwards requests and
/// cancels, reporting each. It shows itself as the subscription it forwards to (same description
/// and `combineIdentifier`).
final class IntrospectedSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    let upstream: any Subscription
    let combineIdentifier: CombineIdentifier

    init(_ upstream: any Subscription) {
        self.upstream = upstream
        combineIdentifier = upstream.combineIdentifier
    }

    var description: String { String(describing: upstream) }

    func request(_ demand: Subscribers.Demand) {
        for introspection in IntrospectionRegistry.shared.current {
            introspection.willRequest(subscription: upstream, demand)
        }
        upstream.request(demand)
        for introspection in IntrospectionRegistry.shared.current {
            introspection.didRequest(subscription: upstream, demand)
        }
    }

    func cancel() {
        for introspection in IntrospectionRegistry.shared.current {
            introspection.willCancel(subscription: upstream)
        }
        upstream.cancel()
        for introspection in IntrospectionRegistry.shared.current {
            introspection.didCancel(subscription: upstream)
        }
    }
}
