/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// A new subscriber receives the current value as soon as it requests demand, then every later
/// value. A subscriber without demand when a value is sent is not skipped entirely: it receives
/// the latest value once it requests more (values in between are conflated). Calling ``send(_:)``
/// or setting ``value`` updates the value and publishes it.
///
/// Thread-safe, re-entrant, and a subscriber arriving after completion gets the completion at once.
/// As Apple's, a subscription keeps its subject alive until it is cancelled or the subject
/// completes.
public final class CurrentValueSubject<Output, Failure: Error>: Subject {
    @usableFromInline
    let core: SubjectCore<Output, Failure>

    /// The value wrapped by this subject, published as a new element whenever it changes.
    ///
    /// Setting it after the subject completed still changes it (publishing nothing), as Apple's.
    @inlinable
    public var value: Output {
        get { core.currentValue }
        set { core.setValue(newValue) }
    }

    /// Creates a current value subject with the given initial value.
    @inlinable
    public init(_ value: Output) {
        core = SubjectCore(kind: .currentValue, currentValue: value)
        core.owner = self
    }

    /// Cancels the upstream subscriptions handed to ``send(subscription:)``.
    deinit {
        core.cancelUpstreams()
    }

    /// Attaches a subscriber; it receives the current value when it first requests demand.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.receive(subscriber: subscriber)
    }

    /// Updates the current value and sends it to every subscriber.
    @inlinable
    public func send(_ input: Output) {
        core.send(input)
    }

    /// Sends a completion to every subscriber; later values and completions are ignored.
    @inlinable
    public func send(completion: Subscribers.Completion<Failure>) {
        core.send(completion: completion)
    }

    /// Requests `.unlimited` from the upstream subscription and keeps it.
    public func send(subscription: any Subscription) {
        core.send(subscription: subscription)
    }
}

extension CurrentValueSubject: UpstreamKeepingSubject {
    /// Drops an upstream subscription whose bridge was cancelled.
    @usableFromInline package func forgetUpstream(_ subscription: AnyObject) { core.forget(upstream: subscription) }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension CurrentValueSubject: @unchecked Sendable {}
#endif
