/// An observer of every subscription made while it is enabled: which publisher receives which
/// subscriber, and every event that subscriber then receives, and every request and cancel made
/// on its subscription.
///
/// Apple's Combine offers this hook, undocumented, for debugging tools. Implement the methods you
/// need (each has a default that does nothing), then call ``enable()``; ``disable()`` stops the
/// reports. Several introspections may be enabled at once; each receives every report, in the
/// order they were enabled.
///
/// How it works: while at least one introspection is enabled, ``Publisher/subscribe(_:)-m2lh``
/// reports the publisher and subscriber, and puts a forwarding subscriber in front of the
/// subscriber (and a forwarding subscription in front of the subscription it receives), which
/// report each event to the introspections enabled at the time of the event. A subscription made
/// while none is enabled gets no forwarding objects and costs nothing more than one flag check at
/// `subscribe`. Calling `receive(subscriber:)` directly bypasses the hook.
///
/// The methods run on the thread of the event they report, possibly on several threads at once.
public protocol _Introspection: AnyObject {
    /// Reports that `publisher` is about to receive `subscriber` (the subscriber as given to
    /// `subscribe`).
    func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure

    /// Reports that `publisher`'s `receive(subscriber:)` has returned.
    func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure

    /// Reports that `subscriber` is about to receive `subscription`.
    func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription)

    /// Reports that `subscriber` has received `subscription`.
    func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription)

    /// Reports that `subscriber` is about to receive `input`.
    func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input)

    /// Reports that `subscriber` has received `input` and returned `resultingDemand`.
    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand)

    /// Reports that `subscriber` is about to receive `completion`.
    func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>)

    /// Reports that `subscriber` has received `completion`.
    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>)

    /// Reports that `demand` is about to be requested from `subscription`.
    func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand)

    /// Reports that `demand` has been requested from `subscription`.
    func didRequest(subscription: any Subscription, _ demand: Subscribers.Demand)

    /// Reports that `subscription` is about to be cancelled.
    func willCancel(subscription: any Subscription)

    /// Reports that `subscription` has been cancelled.
    func didCancel(subscription: any Subscription)
}

extension _Introspection {
    /// Does nothing.
    public func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {}

    /// Does nothing.
    public func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {}

    /// Does nothing.
    public func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {}

    /// Does nothing.
    public func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {}

    /// Does nothing.
    public func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {}

    /// Does nothing.
    public func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand) {}

    /// Does nothing.
    public func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>) {}

    /// Does nothing.
    public func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>) {}

    /// Does nothing.
    public func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {}

    /// Does nothing.
    public func didRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {}

    /// Does nothing.
    public func willCancel(subscription: any Subscription) {}

    /// Does nothing.
    public func didCancel(subscription: any Subscription) {}

    /// Starts reporting to this introspection. Enabling an enabled introspection does nothing.
    public func enable() {
        IntrospectionRegistry.shared.enable(self)
    }

    /// Stops reporting to this introspection. Disabling a disabled introspection does nothing.
    public func disable() {
        IntrospectionRegistry.shared.disable(self)
    }

    /// Whether this introspection is enabled.
    public var isEnabled: Bool {
        IntrospectionRegistry.shared.isEnabled(self)
    }
}
