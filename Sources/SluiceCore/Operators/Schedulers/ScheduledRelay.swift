/// How a ``ScheduledRelay`` hands an event to its scheduler: at the next opportunity
/// (`receive(on:)`, ``NextOpportunity``) or after an interval (`delay(for:)`, ``AfterInterval``).
///
/// A protocol rather than a stored closure, so that a relay specialised in the client's module
/// calls the scheduler directly: on ``ImmediateScheduler`` the call inlines to the action itself.
@usableFromInline
protocol RelayTiming {
    /// The scheduler the events are handed to.
    associatedtype Context: Scheduler

    /// Hands `action` to the scheduler.
    func schedule(_ action: @escaping () -> Void)

    /// What schedules one more run of `action`, when the scheduler repeats a prepared action (see
    /// ``RepeatingScheduler``); `nil` when each event needs a closure of its own.
    func repeater(for action: @escaping () -> Void) -> (() -> Void)?
}

/// `receive(on:)`'s timing: each event at the scheduler's next opportunity
/// (`schedule(options:_:)`).
@usableFromInline
struct NextOpportunity<Context: Scheduler>: RelayTiming {
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(scheduler: Context, options: Context.SchedulerOptions?) {
        self.scheduler = scheduler
        self.options = options
    }

    @inlinable
    func schedule(_ action: @escaping () -> Void) {
        scheduler.schedule(options: options, action)
    }
}

/// `delay(for:)`'s timing: each event `interval` after the scheduler's `now` when it arrives
/// (`schedule(after:tolerance:options:_:)`).
@usableFromInline
struct AfterInterval<Context: Scheduler>: RelayTiming {
    @usableFromInline let scheduler: Context
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let tolerance: Context.SchedulerTimeType.Stride
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(scheduler: Context, interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride,
         options: Context.SchedulerOptions?) {
        self.scheduler = scheduler
        self.interval = interval
        self.tolerance = tolerance
        self.options = options
    }

    @inlinable
    func schedule(_ action: @escaping () -> Void) {
        scheduler.schedule(after: scheduler.now.advanced(by: interval), tolerance: tolerance, options: options, action)
    }

    /// Each delayed event has its own deadline: never a repeated action.
    @inlinable
    func repeater(for action: @escaping () -> Void) -> (() -> Void)? { nil }
}

/// The subscription of `receive(on:)` and `delay(for:)`: it passes the subscription, requests and
/// cancel straight through, and hands each value and the completion to a scheduler (``Timing``
/// says how: at the next opportunity, or after a delay), delivering it downstream when the
/// scheduler runs it. Demand the subscriber returns from `receive(_:)` is requested upstream from
/// there. After a completion, later events are ignored. As Apple's do, each scheduled action holds
/// the subscriber until it runs; a value whose turn comes after a cancel is dropped, while a
/// completion scheduled before the cancel is still delivered. With ``NextOpportunity`` it
/// describes itself as "ReceiveOn" (Apple's `ReceiveOn`); with ``AfterInterval``, by its type name
/// only (Apple's `Delay`).
///
/// Its per-element path is inlinable, so that the client specialises it with the rest of the
/// pipeline (no generic metadata per element). On ``ImmediateScheduler`` a value goes downstream
/// directly, as the scheduler would run the action at once: the same events in the same order,
/// without building the action. On a ``RepeatingScheduler`` (a dispatch queue) the values wait in
/// the relay and each is handed over as one more run of a single prepared action, which delivers
/// the oldest: the same runs in the same order as one action per value, without a closure (and a
/// block) per value; those runs hold the relay, not the subscriber, which a cancel releases at once.
@usableFromInline
final class ScheduledRelay<Downstream: Subscriber, Timing: RelayTiming>: Subscriber, Subscription, @unchecked Sendable {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    /// Boxed, so that deinit (which runs unspecialised) releases a reference instead of looking up
    /// `Optional` metadata (see ``Boxed``), and a scheduled action holds the subscriber with one
    /// retain.
    @exclusivity(unchecked) @usableFromInline var downstream: Boxed<Downstream>?
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    @exclusivity(unchecked) @usableFromInline var completed = false
    /// Whether values are let through: subscribed, and neither completed nor cancelled. The
    /// per-element check reads this flag rather than comparing ``upstream`` with `nil`, which
    /// copies an optional existential through its value witnesses.
    @exclusivity(unchecked) @usableFromInline var open = false
    @usableFromInline let timing: Timing
    /// With a ``RepeatingScheduler`` (a dispatch queue): what schedules one more run of
    /// ``deliverOldest()``, the relay's one prepared action; the values wait in ``waiting``.
    @exclusivity(unchecked) @usableFromInline var repeater: (() -> Void)?
    /// The values handed to ``repeater`` that have not run yet, oldest first.
    @exclusivity(unchecked) @usableFromInline var waiting = DeliveryQueue<Input>()

    @inlinable
    init(downstream: Downstream, timing: Timing) {
        self.downstream = Boxed(downstream)
        self.timing = timing
        // Each run takes over the retain taken when it was scheduled (see `receive(_:)`): the
        // action itself does not hold the relay, which holds it.
        let relay = Unmanaged.passUnretained(self)
        repeater = timing.repeater { relay.takeRetainedValue().deliverOldest() }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let verdict: SubscriptionVerdict<Boxed<Downstream>> = lock.withLock {
            guard upstream == nil, !completed else { return .reject }
            guard let downstream else { return .ignore }   // cancelled before it came: dropped, as Apple's
            upstream = subscription
            open = true
            return .accept(downstream)
        }
        switch verdict {
        case .reject: subscription.cancel()
        case .ignore: break
        case .accept(let downstream): downstream.value.receive(subscription: self)
        }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        // (The first test is decided when the client specialises the relay: on the immediate
        // scheduler, whose path is below, the repeater is not even read.)
        if Timing.Context.self != ImmediateScheduler.self, let repeater {
            // The value waits in the relay, and the run scheduled for it delivers the oldest one.
            let accepted = lock.withLock { () -> Bool in
                guard open else { return false }
                waiting.append(input)
                return true
            }
            guard accepted else { return .none }
            _ = Unmanaged.passRetained(self)   // the run holds the relay, as a scheduled closure would
            repeater()
            return .none
        }
        guard let downstream = lock.withLock({ open ? self.downstream : nil }) else { return .none }
        if Timing.Context.self == ImmediateScheduler.self {
            // The immediate scheduler would run the action right here, before returning: nothing
            // can come between the check above and the delivery.
            deliver(input, to: downstream)
        } else {
            timing.schedule { [self] in
                guard lock.withLock({ self.downstream != nil }) else { return }   // cancelled meanwhile
                deliver(input, to: downstream)
            }
        }
        return .none
    }

    /// One run of ``repeater``: delivers the oldest waiting value, if any is left (none after a
    /// cancel or the completion's delivery).
    @inlinable
    func deliverOldest() {
        let next: (Input, Boxed<Downstream>)? = lock.withLock {
            guard let downstream, let input = waiting.popFirst() else { return nil }
            return (input, downstream)
        }
        guard let (input, downstream) = consume next else { return }
        deliver(input, to: downstream)
    }

    /// Delivers a value whose turn has come, and requests from the upstream the demand the
    /// subscriber returns (unless it cancelled meanwhile).
    @inlinable
    func deliver(_ input: Input, to downstream: Boxed<Downstream>) {
        let demand = downstream.value.receive(input)
        guard demand > .none, let upstream = lock.withLock({ self.downstream == nil ? nil : self.upstream }) else { return }
        upstream.request(demand)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        guard let downstream = claimCompletion() else { return }
        timing.schedule { [self] in
            detach()
            downstream.value.receive(completion: completion)
        }
    }

    /// Under the lock: marks the stream completed and returns the subscriber, unless it was
    /// completed, cancelled or never subscribed.
    @inlinable
    func claimCompletion() -> Boxed<Downstream>? {
        lock.withLock {
            guard open else { return nil }
            open = false
            completed = true
            return downstream
        }
    }

    /// Under the lock: lets go of the subscriber, the upstream and any value still waiting.
    @inlinable
    func detach() {
        lock.withLock {
            downstream = nil
            upstream = nil
            waiting.removeAll()
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        lock.withLock { downstream == nil ? nil : upstream }?.request(demand)
    }

    @inlinable
    func cancel() {
        let upstream: (any Subscription)? = lock.withLock {
            guard downstream != nil else { return nil }
            downstream = nil
            open = false
            waiting.removeAll()
            defer { self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }
}

/// The relay's timing for `receive(on:)`: its subscription describes itself as Apple's does.
@usableFromInline
protocol DescribedRelayTiming: RelayTiming {
    /// What the subscription calls itself ("ReceiveOn").
    static var name: String { get }
}

extension NextOpportunity: DescribedRelayTiming {
    @inlinable
    static var name: String { "ReceiveOn" }
}

// `receive(on:)`'s subscription describes itself by name, with no mirror children; `delay`'s does
// not customise its reflection, as Apple's.
extension ScheduledRelay: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Timing: DescribedRelayTiming {
    @usableFromInline
    var description: String { Timing.name }

    @usableFromInline
    var playgroundDescription: Any { description }

    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// What an operator does with a subscription from its upstream.
@usableFromInline
enum SubscriptionVerdict<Downstream> {
    /// The first one: keep it and hand the downstream its subscription.
    case accept(Downstream)
    /// A second one, or one after completion: cancel it.
    case reject
    /// One that arrives after the downstream cancelled: leave it alone.
    case ignore
}
