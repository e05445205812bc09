/// What a ``Reducer`` decides after taking one upstream value.
@usableFromInline
package enum ReducerStep<Output, Failure: Error> {
    /// Keep accumulating.
    case `continue`
    /// The answer is known: cancel the upstream, publish `Output` (on demand), then `.finished`.
    case finish(Output)
    /// Stop with an error (a `try` closure threw): cancel the upstream and fail.
    case fail(Failure)
}

/// The value-type step of an operator that turns a whole stream into at most one value
/// (`reduce`, `collect`, `count`, `min`/`max`, `contains`, `allSatisfy`, `ignoreOutput`...).
///
/// ``ReducingProducer`` owns the subscription mechanics; a reducer only accumulates. It is
/// generic so that the client's compiler specialises each `receive` into the pipeline.
@usableFromInline
package protocol Reducer {
    /// The upstream's output.
    associatedtype Input
    /// The upstream's failure.
    associatedtype UpstreamFailure: Error
    /// The one value published.
    associatedtype Output
    /// The failure published (the upstream's, or `any Error` for the `try` forms).
    associatedtype Failure: Error

    /// Takes one upstream value.
    mutating func receive(_ input: Input) -> ReducerStep<Output, Failure>
    /// The value to publish when the upstream finishes; `nil` to finish without a value.
    func result() -> Output?
    /// Converts an upstream failure into the published failure.
    func convert(_ failure: UpstreamFailure) -> Failure
}

/// The one engine behind every reducing operator: the upstream's `Subscriber` and the
/// downstream's `Subscription`.
///
/// - Requests `.unlimited` from the upstream once the downstream has requested anything.
/// - Feeds each value to the ``Reducer``; when it decides early (or a closure throws), cancels the
///   upstream and completes the downstream exactly once.
/// - Publishes the value only when the downstream has demand (holding it until then if the
///   upstream finished first), then `.finished`. A failing upstream's failure passes through.
/// - Never calls out while holding its lock; `cancel()` is idempotent and releases both sides.
@usableFromInline
final class ReducingProducer<R: Reducer, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == R.Output, Downstream.Failure == R.Failure {
    @usableFromInline typealias Input = R.Input
    @usableFromInline typealias Failure = R.UpstreamFailure

    @usableFromInline let lock = Lock()
    /// Touched only by the upstream's (serialised) `receive` calls, never under the lock.
    ///
    /// Its exclusivity is the upstream's serialisation, so it skips the runtime exclusivity checks
    /// (a cost per element). Wrapped in ``NonEmpty`` for Thread Sanitizer's sake.
    @exclusivity(unchecked) @usableFromInline var reducer: NonEmpty<R>
    // Guarded by `lock`, which makes their exclusivity explicit (no runtime exclusivity checks):
    @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
    @exclusivity(unchecked) @usableFromInline var boxedDownstream: Boxed<Downstream>?
    /// Boxed, so that deinit (which runs unspecialised) releases a reference instead of
    /// looking up `Optional` metadata (see ``Boxed``).
    @inlinable var downstream: Downstream? {
        get { boxedDownstream?.value }
        set { boxedDownstream = newValue.map { Boxed($0) } }
    }
    @exclusivity(unchecked) @usableFromInline var hasDemand = false
    /// The result, waiting for downstream demand.
    @exclusivity(unchecked) @usableFromInline var boxedPending: Boxed<R.Output>?
    /// Boxed, so that deinit (which runs unspecialised) releases a reference instead of
    /// looking up `Optional` metadata (see ``Boxed``).
    @inlinable var pending: R.Output? {
        get { boxedPending?.value }
        set { boxedPending = newValue.map { Boxed($0) } }
    }
    /// Set by `cancel()`: nothing is sent afterwards, even mid-delivery.
    @exclusivity(unchecked) @usableFromInline var isCancelled = false
    @usableFromInline let name: String

    @inlinable
    init(reducer: R, downstream: Downstream, name: String) {
        self.reducer = NonEmpty(reducer)
        boxedDownstream = Boxed(downstream)
        self.name = name
    }

    // MARK: Upstream side

    @inlinable
    func receive(subscription: any Subscription) {
        let attached = lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            return upstream.attach(subscription)
        }
        guard attached else {
            subscription.cancel()
            return
        }
        lock.withLock { downstream }?.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: R.Input) -> Subscribers.Demand {
        guard lock.withLock({ upstream.subscription != nil }) else { return .none }
        switch reducer.value.receive(input) {
        case .continue:
            break
        case .finish(let output):
            finishEarly(with: output)
        case .fail(let error):
            let (subscription, target) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
                guard !upstream.isTerminal else { return (nil, nil) }
                defer { downstream = nil }
                return (upstream.detach(), downstream)
            }
            subscription?.cancel()
            target?.receive(completion: .failure(error))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<R.UpstreamFailure>) {
        guard lock.withLock({ upstream.finish() }) else { return }
        switch completion {
        case .failure(let error):
            let target = lock.withLock { () -> Downstream? in
                defer { downstream = nil }
                return downstream
            }
            target?.receive(completion: .failure(reducer.value.convert(error)))
        case .finished:
            if let output = reducer.value.result() {
                deliverWhenDemanded(output)
            } else {
                let target = lock.withLock { () -> Downstream? in
                    defer { downstream = nil }
                    return downstream
                }
                target?.receive(completion: .finished)
            }
        }
    }

    /// The reducer decided before the upstream finished.
    @inlinable
    func finishEarly(with output: R.Output) {
        let subscription = lock.withLock { () -> (any Subscription)? in
            guard !upstream.isTerminal else { return nil }
            return upstream.detach()
        }
        guard let subscription else { return }
        subscription.cancel()
        deliverWhenDemanded(output)
    }

    /// Sends `output` and `.finished` now if the downstream has asked for anything, or keeps it
    /// for the first request.
    @inlinable
    func deliverWhenDemanded(_ output: R.Output) {
        let target = lock.withLock { () -> Downstream? in
            guard let downstream, !isCancelled else { return nil }
            guard hasDemand else {
                pending = output
                return nil
            }
            self.downstream = nil
            return downstream
        }
        if let target { deliver(output, to: target) }
    }

    @inlinable
    func deliver(_ output: R.Output, to target: Downstream) {
        _ = target.receive(output)
        if lock.withLock({ isCancelled }) { return }
        target.receive(completion: .finished)
    }

    // MARK: Downstream side

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (subscription, output, target) = lock.withLock {
            () -> ((any Subscription)?, R.Output?, Downstream?) in
            guard !hasDemand, let downstream else { return (nil, nil, nil) }
            hasDemand = true
            if let output = pending {
                pending = nil
                self.downstream = nil
                return (nil, output, downstream)
            }
            return (upstream.subscription, nil, nil)
        }
        if let output, let target {
            deliver(output, to: target)
        } else {
            subscription?.request(.unlimited)
        }
    }

    @inlinable
    func cancel() {
        let (subscription, released, result) = lock.withLock {
            () -> ((any Subscription)?, Downstream?, R.Output?) in
            isCancelled = true
            defer {
                downstream = nil
                pending = nil
            }
            return (upstream.detach(), downstream, pending)
        }
        subscription?.cancel()
        _ = (released, result)
    }

    @usableFromInline var description: String { name }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["downstream": lock.withLock { downstream } as Any])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
