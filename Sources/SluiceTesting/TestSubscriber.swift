import SluiceCore

/// A subscriber for tests: records every event in order and leaves demand under the test's control.
///
/// ```swift
/// let subscriber = TestSubscriber<String, Never>(initialDemand: .max(2))
/// PepBoys().subscribe(subscriber)
/// #expect(subscriber.values == ["Manny", "Moe"])
/// subscriber.request(.max(1))
/// #expect(subscriber.completion == .finished)
/// ```
///
/// Demand: `initialDemand` is requested as soon as the subscription arrives (`.none` requests
/// nothing), `demandPerValue` is returned from every `receive(_:)`, and ``request(_:)`` asks for
/// more at any time. The hooks (``onSubscription``, ``onValue``, ``onCompletion``) run after the
/// event is recorded, without any lock held, so a test can request, cancel or send from inside
/// them. Thread-safe: events may arrive from any thread.
public final class TestSubscriber<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
    @unchecked Sendable
{
    /// One recorded event.
    public enum Event: CustomStringConvertible {
        /// `receive(subscription:)`, with the subscription's description.
        case subscription(String)
        /// `receive(_:)`.
        case value(Input)
        /// `receive(completion:)`.
        case completion(Subscribers.Completion<Failure>)

        /// `subscription(Just)`, `value(1)`, `finished`, `failure(error)`.
        public var description: String {
            switch self {
            case .subscription(let name): return "subscription(\(name))"
            case .value(let value): return "value(\(value))"
            case .completion(.finished): return "finished"
            case .completion(.failure(let error)): return "failure(\(error))"
            }
        }
    }

    /// The demand returned from each `receive(_:)`.
    public let demandPerValue: Subscribers.Demand

    /// Runs after the subscription is recorded (and after `initialDemand` was requested).
    public var onSubscription: ((TestSubscriber) -> Void)? {
        get { lock.withLock { hooks.subscription } }
        set {
            let replaced = lock.withLock { () -> ((TestSubscriber) -> Void)? in
                defer { hooks.subscription = newValue }
                return hooks.subscription
            }
            _ = replaced  // released outside the lock
        }
    }

    /// Runs after each value is recorded; its returned demand is added to `demandPerValue`.
    public var onValue: ((Input, TestSubscriber) -> Subscribers.Demand)? {
        get { lock.withLock { hooks.value } }
        set {
            let replaced = lock.withLock { () -> ((Input, TestSubscriber) -> Subscribers.Demand)? in
                defer { hooks.value = newValue }
                return hooks.value
            }
            _ = replaced  // released outside the lock
        }
    }

    /// Runs after the completion is recorded.
    public var onCompletion: ((Subscribers.Completion<Failure>, TestSubscriber) -> Void)? {
        get { lock.withLock { hooks.completion } }
        set {
            let replaced = lock.withLock { () -> ((Subscribers.Completion<Failure>, TestSubscriber) -> Void)? in
                defer { hooks.completion = newValue }
                return hooks.completion
            }
            _ = replaced  // released outside the lock
        }
    }

    private struct Hooks {
        var subscription: ((TestSubscriber) -> Void)?
        var value: ((Input, TestSubscriber) -> Subscribers.Demand)?
        var completion: ((Subscribers.Completion<Failure>, TestSubscriber) -> Void)?
    }

    private let lock = Lock()
    private var hooks = Hooks()
    private var recorded: [Event] = []
    private var upstream: (any Subscription)?
    private var subscriptionCount = 0
    private let initialDemand: Subscribers.Demand
    private var cancelled = false

    /// Creates a subscriber that requests `initialDemand` on subscription and returns
    /// `demandPerValue` from every value.
    public init(initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none) {
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
    }

    /// Every event received, in order.
    public var events: [Event] { lock.withLock { recorded } }

    /// The values received, in order.
    public var values: [Input] {
        events.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }

    /// The completion received, if any (the first one, should a broken publisher send two).
    public var completion: Subscribers.Completion<Failure>? {
        events.lazy.compactMap { if case .completion(let completion) = $0 { completion } else { nil } }.first
    }

    /// The subscription received, until ``cancel()`` releases it.
    public var subscription: (any Subscription)? { lock.withLock { upstream } }

    /// How many times `receive(subscription:)` was called (1 for a well-behaved publisher).
    public var subscriptionsReceived: Int { lock.withLock { subscriptionCount } }

    /// The events as short strings: `["subscription(Just)", "value(1)", "finished"]`.
    public var eventDescriptions: [String] { events.map(\.description) }

    /// Requests more values from the subscription. Ignored before the subscription or after
    /// ``cancel()``.
    public func request(_ demand: Subscribers.Demand) {
        lock.withLock { cancelled ? nil : upstream }?.request(demand)
    }

    /// Cancels the subscription and releases it.
    public func cancel() {
        let subscription = lock.withLock { () -> (any Subscription)? in
            cancelled = true
            defer { upstream = nil }
            return upstream
        }
        subscription?.cancel()
    }

    /// Records the subscription, keeps the first one, and requests `initialDemand`.
    public func receive(subscription: any Subscription) {
        let name = String(describing: subscription)  // outside the lock: it calls into the subscription
        let (first, hook) = lock.withLock { () -> (Bool, ((TestSubscriber) -> Void)?) in
            recorded.append(.subscription(name))
            subscriptionCount += 1
            guard upstream == nil, !cancelled else { return (false, nil) }
            upstream = subscription
            return (true, hooks.subscription)
        }
        guard first else { return }
        if initialDemand != .none {
            subscription.request(initialDemand)
        }
        hook?(self)
    }

    /// Records the value and returns `demandPerValue` plus what ``onValue`` returns.
    public func receive(_ input: Input) -> Subscribers.Demand {
        let hook = lock.withLock { () -> ((Input, TestSubscriber) -> Subscribers.Demand)? in
            recorded.append(.value(input))
            return hooks.value
        }
        return demandPerValue + (hook?(input, self) ?? .none)
    }

    /// Records the completion and releases the subscription.
    public func receive(completion: Subscribers.Completion<Failure>) {
        let (hook, released) = lock.withLock { () -> (((Subscribers.Completion<Failure>, TestSubscriber) -> Void)?, (any Subscription)?) in
            recorded.append(.completion(completion))
            defer { upstream = nil }
            return (hooks.completion, upstream)
        }
        _ = released
        hook?(completion, self)
    }

    /// `"TestSubscriber"`.
    public var description: String { "TestSubscriber" }
}

extension TestSubscriber.Event: Equatable where Input: Equatable, Failure: Equatable {}
