/// What an ``ElementStep`` decides for one upstream value.
@usableFromInline
package enum ElementDecision<Output, Failure: Error> {
    /// Publish the value downstream; the downstream's returned demand goes upstream.
    case send(Output)
    /// Publish nothing and ask the upstream for one more value in its place (`filter`-like).
    case drop
    /// Publish the value, then cancel the upstream and finish (`first(where:)`-like).
    case sendAndFinish(Output)
    /// Publish nothing more: cancel the upstream and finish (`prefix(while:)`-like).
    case finish
    /// Stop with an error (a `try` closure threw): cancel the upstream and fail.
    case fail(Failure)
}

/// What an ``ElementStep`` decides when the upstream completes.
@usableFromInline
package enum ElementEnding<Output, Failure: Error> {
    /// Complete the downstream with this completion.
    case complete(Subscribers.Completion<Failure>)
    /// Publish one last value as soon as the downstream has demand for it, then finish
    /// (`replaceEmpty`, `replaceError`).
    case sendAndFinish(Output)
}

/// The value-type step of an operator that republishes an upstream element by element and can end
/// the stream itself or change its failure (`tryMap`, `tryFilter`, `tryScan`, `replaceError`...).
///
/// ``ElementProducer`` owns the subscription mechanics (lock, demand, cancellation, releasing both
/// sides); a step only decides. The producer calls the step's methods without holding its lock,
/// one at a time (the upstream serialises its calls), so a step may run user closures and keep
/// mutable state (`scan`'s accumulator, `removeDuplicates`' last value) in plain stored properties.
@usableFromInline
package protocol ElementStep {
    /// The upstream's output.
    associatedtype Input
    /// The upstream's failure.
    associatedtype UpstreamFailure: Error
    /// The values published downstream.
    associatedtype Output
    /// The failure published downstream.
    associatedtype Failure: Error

    /// Decides what to do with one upstream value.
    mutating func receive(_ input: Input) -> ElementDecision<Output, Failure>

    /// Decides how to end when the upstream completes.
    mutating func receive(completion: Subscribers.Completion<UpstreamFailure>) -> ElementEnding<Output, Failure>

    /// What the operator does with an upstream that misbehaves around its subscription (events
    /// before it, a subscription after a cancel). Apple's operators differ here; the default is
    /// ``EarlyEventHandling/ignore``.
    static var earlyEvents: EarlyEventHandling { get }

    /// Whether the operator asks the upstream for `.unlimited` as soon as it has passed its
    /// subscription downstream, whatever the subscriber requests (as Combine's `replaceEmpty`
    /// does), and also asks a subscription that arrives after an early cancel (which it does not
    /// cancel, unless ``earlyEvents`` is ``EarlyEventHandling/trap``). The default is `false`:
    /// demand passes through.
    static var requestsUnlimited: Bool { get }

    /// Whether a value that arrives while the subscriber has no outstanding demand stops the
    /// program (as Combine's `replaceError` does). The default is `false`.
    static var trapsOnValueWithoutDemand: Bool { get }

    /// The children of the subscription's `customMirror`, as Apple's operator shows them. The
    /// default is the downstream alone, labelled "downstream".
    func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child]
}

/// How an ``ElementProducer`` treats a misbehaving upstream: one that sends a value or a
/// completion, or is asked for demand, before it has sent its subscription; and a subscription
/// that arrives after the downstream cancelled before any subscription did (a subscription that
/// arrives after an earlier one, or after the end, is always cancelled).
@usableFromInline
package enum EarlyEventHandling {
    /// Values and completions before the subscription are ignored; so is a subscription arriving
    /// after a cancel (it is not cancelled). `dropWhile`, `replaceError`.
    case ignore
    /// Values before the subscription are processed and published (a completion is ignored); a
    /// subscription arriving after a cancel is ignored. `tryMap`, `tryScan`.
    case forwardValues
    /// Values and a completion before the subscription are processed and published; a
    /// subscription arriving after a cancel is ignored. `encode`, `decode`.
    case forwardAll
    /// A value, a completion or a downstream request before the subscription stops the program;
    /// a subscription arriving after a cancel is cancelled. `tryFilter`, `prefix(while:)`,
    /// `removeDuplicates`...
    case trap
}

extension ElementStep {
    /// Events around the subscription are ignored (see ``EarlyEventHandling/ignore``).
    @inlinable
    package static var earlyEvents: EarlyEventHandling { .ignore }

    /// Demand passes through.
    @inlinable
    package static var requestsUnlimited: Bool { false }

    /// Values beyond the demand are published.
    @inlinable
    package static var trapsOnValueWithoutDemand: Bool { false }

    /// The downstream alone, labelled "downstream".
    @inlinable
    package func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
        [(label: "downstream", value: downstream)]
    }
}

/// The one engine behind the element-by-element operators that need a subscription of their own:
/// the upstream's `Subscriber` and the downstream's `Subscription`.
///
/// - Demand: every downstream request is forwarded upstream unchanged, and the demand the
///   downstream returns from `receive(_:)` is returned to the upstream. A dropped value is replaced
///   by returning `.max(1)`. The producer also counts the outstanding downstream demand, so that a
///   value published at completion (``ElementEnding/sendAndFinish(_:)``) waits for demand.
/// - Ending early (``ElementDecision/finish``, ``ElementDecision/sendAndFinish(_:)``,
///   ``ElementDecision/fail(_:)``): cancels the upstream, then completes the downstream exactly once.
/// - Never calls out (downstream, upstream, the step) while holding its lock. `cancel()` is
///   idempotent, thread-safe, and releases the downstream and the upstream subscription; so does
///   any completion.
/// - `description` (what `print()` and the upstream see) is the `name` given, e.g. "TryMap";
///   the `customMirror` children are the step's (``ElementStep/mirrorChildren(downstream:upstream:)``).
/// - A misbehaving upstream (events before its subscription, a subscription after an early
///   cancel) is treated as the step's ``ElementStep/earlyEvents`` says, as Combine's operator does.
/// - Steps may also ask the upstream for `.unlimited` (``ElementStep/requestsUnlimited``) or trap
///   on a value without demand (``ElementStep/trapsOnValueWithoutDemand``).
@usableFromInline
final class ElementProducer<Step: ElementStep, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Step.Output, Downstream.Failure == Step.Failure {
    @usableFromInline typealias Input = Step.Input
    @usableFromInline typealias Failure = Step.UpstreamFailure

    @usableFromInline let lock = Lock()
    /// Touched only by the upstream's serialised `receive` calls, never under the lock.
    ///
    /// Its exclusivity is the upstream's serialisation, so it skips the runtime exclusivity checks
    /// (a cost per element). Wrapped in ``NonEmpty`` for Thread Sanitizer's sake.
    @exclusivity(unchecked) @usableFromInline var step: NonEmpty<Step>
    @usableFromInline let name: String
    // Guarded by `lock`, which makes their exclusivity explicit (no runtime exclusivity checks):
    @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
    @exclusivity(unchecked) @usableFromInline var boxedDownstream: Boxed<Downstream>?
    /// Boxed, so that deinit (which runs unspecialised) releases a reference instead of
    /// looking up `Optional` metadata (see ``Boxed``).
    @inlinable var downstream: Downstream? {
        get { boxedDownstream?.value }
        set { boxedDownstream = newValue.map { Boxed($0) } }
    }
    /// The downstream demand not yet used by a value.
    @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
    /// A last value waiting for downstream demand (the upstream has already completed).
    @exclusivity(unchecked) @usableFromInline var boxedPending: Boxed<Step.Output>?
    /// Boxed, so that deinit (which runs unspecialised) releases a reference instead of
    /// looking up `Optional` metadata (see ``Boxed``).
    @inlinable var pending: Step.Output? {
        get { boxedPending?.value }
        set { boxedPending = newValue.map { Boxed($0) } }
    }
    /// Set by `cancel()`: nothing is sent afterwards, even mid-delivery of a last value.
    @exclusivity(unchecked) @usableFromInline var isCancelled = false
    /// Set by a `cancel()` that came before the upstream's subscription.
    @exclusivity(unchecked) @usableFromInline var cancelledUnsubscribed = false
    /// Leads `request(_:)`, which arrives through `any Subscription` and so runs unspecialised, into
    /// the code specialised where `init` ran (as ``SubjectSubscription/requestEntry`` does): under
    /// one-at-a-time demand, every value would otherwise look up generic metadata.
    @usableFromInline let requestEntry: (ElementProducer, Subscribers.Demand) -> Void

    /// Creates the producer for one subscription; attach it upstream with `receive(subscriber:)`.
    @inlinable
    init(step: Step, downstream: Downstream, name: String) {
        self.step = NonEmpty(step)
        boxedDownstream = Boxed(downstream)
        self.name = name
        requestEntry = { $0.requestSpecialised($1) }
    }

    // MARK: Upstream side

    @inlinable
    func receive(subscription: any Subscription) {
        let (target, refuse) = lock.withLock { () -> (Downstream?, Bool) in
            // Cancelled before any subscription arrived: Combine ignores this one, or cancels it.
            if cancelledUnsubscribed { return (nil, Step.earlyEvents == .trap) }
            guard let downstream, upstream.attach(subscription) else { return (nil, true) }
            return (downstream, false)
        }
        guard let target else {
            if refuse {
                subscription.cancel()
            } else if Step.requestsUnlimited {
                // Cancelled before any subscription arrived: Combine's replaceEmpty still asks
                // this one for everything (nobody receives it).
                subscription.request(.unlimited)
            }
            return
        }
        target.receive(subscription: self)
        if Step.requestsUnlimited, lock.withLock({ !upstream.isTerminal }) {
            subscription.request(.unlimited)
        }
    }

    @inlinable
    func receive(_ input: Step.Input) -> Subscribers.Demand {
        guard lock.withLock({ upstream.subscription != nil && downstream != nil }) else {
            return receiveUnsubscribed(input)
        }
        return apply(step.value.receive(input))
    }

    /// A value from an upstream that has not sent its subscription yet, or after the end.
    @usableFromInline @inline(never)
    func receiveUnsubscribed(_ input: Step.Input) -> Subscribers.Demand {
        let awaiting = lock.withLock { () -> Bool in
            guard downstream != nil, upstream.isAwaiting else { return false }
            return true
        }
        guard awaiting else { return .none }
        switch Step.earlyEvents {
        case .trap:
            preconditionFailure("\(name) received a value before receiving a subscription")
        case .ignore:
            return .none
        case .forwardValues, .forwardAll:
            return apply(step.value.receive(input))
        }
    }

    /// Carries out what the step decided for one value.
    @inlinable
    func apply(_ decision: ElementDecision<Step.Output, Step.Failure>) -> Subscribers.Demand {
        switch decision {
        case .send(let output):
            return send(output)
        case .drop:
            return .max(1)
        case .sendAndFinish(let output):
            _ = send(output)
            end(with: .finished)
            return .none
        case .finish:
            end(with: .finished)
            return .none
        case .fail(let error):
            end(with: .failure(error))
            return .none
        }
    }

    /// Delivers one value while subscribed, keeping the count of outstanding demand.
    @inlinable
    func send(_ output: Step.Output) -> Subscribers.Demand {
        let target = lock.withLock { () -> Downstream? in
            guard !upstream.isTerminal, let downstream else { return nil }
            precondition(!Step.trapsOnValueWithoutDemand || demand != .none,
                         "\(name) received a value while the subscriber had no demand")
            demand -= 1
            return downstream
        }
        guard let target else { return .none }
        let more = target.receive(output)
        if more != .none {
            lock.withLock { demand += more }
        }
        return more
    }

    /// Cancels the upstream and completes the downstream, once.
    @inlinable
    func end(with completion: Subscribers.Completion<Step.Failure>) {
        let (subscription, target) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
            guard !upstream.isTerminal else { return (nil, nil) }
            defer { downstream = nil }
            return (upstream.detach(), downstream)
        }
        subscription?.cancel()
        target?.receive(completion: completion)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Step.UpstreamFailure>) {
        let proceed = lock.withLock { () -> Bool? in
            if upstream.isAwaiting, downstream != nil {
                switch Step.earlyEvents {
                case .trap: return nil
                case .ignore, .forwardValues: return false
                case .forwardAll: break
                }
            }
            return upstream.finish() && downstream != nil
        }
        guard let proceed else {
            preconditionFailure("\(name) received a completion before receiving a subscription")
        }
        guard proceed else { return }
        switch step.value.receive(completion: completion) {
        case .complete(let completion):
            let target = lock.withLock { () -> Downstream? in
                defer { downstream = nil }
                return downstream
            }
            target?.receive(completion: completion)
        case .sendAndFinish(let output):
            let target = lock.withLock { () -> Downstream? in
                guard let downstream, !isCancelled else { return nil }
                guard demand != .none else {
                    pending = output
                    return nil
                }
                self.downstream = nil
                return downstream
            }
            if let target { deliverLast(output, to: target) }
        }
    }

    /// Sends the last value and `.finished`, unless the downstream cancels in between.
    @inlinable
    func deliverLast(_ output: Step.Output, to target: Downstream) {
        _ = target.receive(output)
        if lock.withLock({ isCancelled }) { return }
        target.receive(completion: .finished)
    }

    // MARK: Downstream side

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        requestEntry(self, demand)
    }

    /// `request(_:)`, specialised (see ``requestEntry``).
    @inlinable
    func requestSpecialised(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (subscription, last, target, early) = lock.withLock {
            () -> ((any Subscription)?, Step.Output?, Downstream?, Bool) in
            guard let downstream else { return (nil, nil, nil, false) }
            if Step.earlyEvents == .trap, upstream.isAwaiting { return (nil, nil, nil, true) }
            if let output = pending {
                pending = nil
                self.downstream = nil
                return (nil, output, downstream, false)
            }
            self.demand += demand
            return (upstream.subscription, nil, nil, false)
        }
        if early {
            preconditionFailure("\(name) was asked for demand before receiving a subscription")
        }
        if let last, let target {
            deliverLast(last, to: target)
        } else {
            subscription?.request(demand)
        }
    }

    @inlinable
    func cancel() {
        let (subscription, released, last) = lock.withLock {
            () -> ((any Subscription)?, Downstream?, Step.Output?) in
            isCancelled = true
            if upstream.isAwaiting { cancelledUnsubscribed = true }
            defer {
                downstream = nil
                pending = nil
            }
            return (upstream.detach(), downstream, pending)
        }
        subscription?.cancel()
        _ = (released, last)  // released here, outside the lock
    }

    @usableFromInline var description: String { name }
    @usableFromInline var customMirror: Mirror {
        let (downstream, upstream) = lock.withLock { (self.downstream as Any, self.upstream) }
        return Mirror(self, children: step.value.mirrorChildren(downstream: downstream, upstream: upstream))
    }
    @usableFromInline var playgroundDescription: Any { description }
}
