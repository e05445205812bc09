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

    /// Whether ``receive(_:)`` runs none of the user's code (no closure, no conformance of
    /// theirs), so that the producer may run it with its lock held — and read the reducer under
    /// that lock for reflection. `false` unless a reducer says otherwise.
    static var receivesUnderLock: Bool { get }

    /// The children of the subscription's `customMirror` when Apple shows other ones than the
    /// reduce-like `downstream`, `result`, `initial`, `status` (`Collect` shows only `count`);
    /// `nil` (the default) for those. Called with the producer's lock held, and only for reducers
    /// that ``receivesUnderLock``.
    func customMirrorChildren() -> KeyValuePairs<String, Any>?
}

extension Reducer {
    /// The default: `receive` may run user code, so it runs without the lock.
    @inlinable
    package static var receivesUnderLock: Bool { false }

    /// The default: Apple's reduce-like mirror.
    @inlinable
    package func customMirrorChildren() -> KeyValuePairs<String, Any>? { nil }
}

/// The one engine behind every reducing operator: the upstream's `Subscriber` and the
/// downstream's `Subscription`. It behaves as Apple's reducing operators do:
///
/// - On the upstream's subscription, passes itself downstream, then requests `.unlimited` from
///   the upstream at once, whatever the downstream asks (unless the downstream cancelled from
///   inside its `receive(subscription:)`). A second subscription, or one after the end, is
///   cancelled. Values and a completion that arrive before the subscription are ignored.
/// - Feeds each value to the ``Reducer``; when it decides early, cancels the upstream; when a
///   `try` closure throws, cancels the upstream and fails at once.
/// - Publishes the answer — the value, if any, then `.finished` — only once the downstream has
///   asked for something, holding it until then. A failing upstream's failure passes through at
///   once.
/// - `cancel()` before the subscription does nothing (Apple's too); afterwards it cancels the
///   upstream once and drops a held answer.
/// - Unlike Apple's, releases the downstream on completion and on cancel (DESIGN.md, rule 4).
/// - Never calls out while holding its lock.
@usableFromInline
final class ReducingProducer<R: Reducer, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == R.Output, Downstream.Failure == R.Failure {
    @usableFromInline typealias Input = R.Input
    @usableFromInline typealias Failure = R.UpstreamFailure

    @usableFromInline let lock = Lock()
    /// Touched only by the upstream's (serialised) `receive` calls — under the lock when
    /// `R.receivesUnderLock`, without it otherwise.
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
    /// Whether the downstream has asked for anything.
    @exclusivity(unchecked) @usableFromInline var hasDemand = false
    /// The answer, known before the downstream asked for it: the value to publish before
    /// `.finished` (`nil` inside: finish without a value). Boxed (see ``Boxed``).
    @exclusivity(unchecked) @usableFromInline var held: Boxed<R.Output?>?
    /// Set by `cancel()`: nothing is sent afterwards, even mid-delivery.
    @exclusivity(unchecked) @usableFromInline var isCancelled = false
    @usableFromInline let name: String
    /// The initial result shown by the mirror (`Reduce`'s); `nil` for the other operators.
    @usableFromInline let initial: Boxed<R.Output>?

    /// Where a request enters: made in `init`, where the types are concrete, so that an answer
    /// sent from inside the request (which arrives through `any Subscription`) and whatever it sets
    /// off downstream run specialised (see `SingleValueSubscription`).
    @usableFromInline let requestEntry: (ReducingProducer) -> Void

    @inlinable
    init(reducer: R, downstream: Downstream, name: String, initial: R.Output? = nil) {
        self.reducer = NonEmpty(reducer)
        boxedDownstream = Boxed(downstream)
        self.name = name
        self.initial = initial.map { Boxed($0) }
        requestEntry = { $0.sendHeldAnswer() }
    }

    /// With the lock held: ends a live subscription (the status becomes terminal) and returns
    /// it; `nil`, changing nothing, before the subscription or after the end.
    @inlinable
    func endSubscription() -> (any Subscription)? {
        guard let subscription = upstream.subscription else { return nil }
        upstream = .terminal
        return subscription
    }

    // MARK: Upstream side

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
        if lock.withLock({ upstream.subscription != nil }) {
            subscription.request(.unlimited)
        }
    }

    @inlinable
    func receive(_ input: R.Input) -> Subscribers.Demand {
        let step: ReducerStep<R.Output, R.Failure>
        if R.receivesUnderLock {
            guard let decided = lock.withLock({ () -> ReducerStep<R.Output, R.Failure>? in
                guard upstream.subscription != nil else { return nil }
                return reducer.value.receive(input)
            }) else { return .none }
            step = decided
        } else {
            guard lock.withLock({ upstream.subscription != nil }) else { return .none }
            step = reducer.value.receive(input)
        }
        switch step {
        case .continue:
            break
        case .finish(let output):
            if let subscription = lock.withLock({ endSubscription() }) {
                subscription.cancel()
                conclude(with: output)
            }
        case .fail(let error):
            let (subscription, target) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
                guard let subscription = endSubscription() else { return (nil, nil) }
                defer { downstream = nil }
                return (subscription, downstream)
            }
            subscription?.cancel()
            target?.receive(completion: .failure(error))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<R.UpstreamFailure>) {
        guard lock.withLock({ endSubscription() }) != nil else { return }
        switch completion {
        case .failure(let error):
            let target = lock.withLock { () -> Downstream? in
                defer { downstream = nil }
                return downstream
            }
            target?.receive(completion: .failure(reducer.value.convert(error)))
        case .finished:
            conclude(with: reducer.value.result())
        }
    }

    /// The answer is known: sends it now if the downstream has asked for anything, or holds it
    /// for the first request.
    @inlinable
    func conclude(with output: R.Output?) {
        let target = lock.withLock { () -> Downstream? in
            guard let downstream else { return nil }
            guard hasDemand else {
                held = Boxed(output)
                return nil
            }
            self.downstream = nil
            return downstream
        }
        if let target { deliver(output, to: target) }
    }

    @inlinable
    func deliver(_ output: R.Output?, to target: Downstream) {
        if let output {
            _ = target.receive(output)
            if lock.withLock({ isCancelled }) { return }
        }
        target.receive(completion: .finished)
    }

    // MARK: Downstream side

    /// Records the demand (the upstream already has `.unlimited`) and sends a held answer.
    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        requestEntry(self)
    }

    /// ``request(_:)``, specialised.
    @inlinable
    func sendHeldAnswer() {
        let (answer, target) = lock.withLock { () -> (Boxed<R.Output?>?, Downstream?) in
            hasDemand = true
            guard let answer = held, let downstream else { return (nil, nil) }
            held = nil
            self.downstream = nil
            return (answer, downstream)
        }
        if let answer, let target { deliver(answer.value, to: target) }
    }

    @inlinable
    func cancel() {
        let (subscription, released, dropped) = lock.withLock {
            () -> ((any Subscription)?, Downstream?, Boxed<R.Output?>?) in
            // Before the subscription, Apple's reducing operators ignore a cancel.
            if upstream.isAwaiting { return (nil, nil, nil) }
            isCancelled = true
            defer {
                downstream = nil
                held = nil
            }
            return (upstream.detach(), downstream, held)
        }
        subscription?.cancel()
        _ = (released, dropped)  // released here, outside the lock
    }

    @usableFromInline var description: String { name }

    /// Apple's children: `downstream`, `result` (the answer once known), `initial` (`Reduce`'s
    /// initial result) and `status` (the upstream's); or the reducer's own (`Collect`'s `count`).
    @usableFromInline var customMirror: Mirror {
        if R.receivesUnderLock, let children = lock.withLock({ reducer.value.customMirrorChildren() }) {
            return Mirror(self, children: children)
        }
        let (downstream, result, status) = lock.withLock { (self.downstream, held?.value, upstream) }
        return Mirror(self, children: [
            "downstream": downstream as Any,
            "result": result as Any,
            "initial": initial?.value as Any,
            "status": status,
        ])
    }

    @usableFromInline var playgroundDescription: Any { description }
}
