/// A subject that broadcasts elements to downstream subscribers.
///
/// Unlike ``CurrentValueSubject``, a `PassthroughSubject` has no initial value or buffer of the
/// most recently-published element: a subscriber that has no outstanding demand when a value is
/// sent does not receive it. Each subscriber has its own demand.
///
/// `send` is thread-safe and may be called from inside a subscriber's `receive` (the re-entrant
/// value is delivered, in order, as soon as the current `receive` returns). A subscriber that
/// arrives after the subject completed receives the completion immediately.
///
/// As Apple's, a subscription keeps its subject alive until it is cancelled or the subject
/// completes: a subject that only its subscribers reference still reaches them through a weak
/// reference.
public final class PassthroughSubject<Output, Failure: Error>: Subject {
    @usableFromInline
    let core = SubjectCore<Output, Failure>(kind: .passthrough, currentValue: nil)

    /// Creates a subject.
    @inlinable
    public init() {
        core.owner = self
    }

    /// Cancels the upstream subscriptions handed to ``send(subscription:)``.
    deinit {
        core.cancelUpstreams()
    }

    /// Attaches a subscriber; it receives values sent after it has requested demand.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.receive(subscriber: subscriber)
    }

    /// Sends a value to every subscriber that has demand for it.
    @inlinable
    public func send(_ input: Output) {
        core.send(input)
    }

    /// Sends a completion to every subscriber; later values and completions are ignored.
    @inlinable
    public func send(completion: Subscribers.Completion<Failure>) {
        core.send(completion: completion)
    }

    /// Keeps the upstream subscription, and requests `.unlimited` from it once any subscriber has
    /// requested demand (at once if one already has).
    public func send(subscription: any Subscription) {
        core.send(subscription: subscription)
    }
}

extension PassthroughSubject: UpstreamKeepingSubject {
    /// Drops an upstream subscription whose bridge was cancelled.
    @usableFromInline package func forgetUpstream(_ subscription: AnyObject) { core.forget(upstream: subscription) }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension PassthroughSubject: @unchecked Sendable {}
#endif
