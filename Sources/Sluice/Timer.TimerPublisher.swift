import Foundation
import SluiceCore

extension Timer {
    /// Returns a publisher that repeatedly emits the current date on the given interval.
    ///
    /// Like Apple's, the publisher ignores `tolerance` (its `tolerance` property is `nil`).
    ///
    /// - Parameters:
    ///   - interval: The time interval on which to publish events.
    ///   - tolerance: The allowed timing variance when emitting events (unused, as in Apple's).
    ///   - runLoop: The run loop on which the timer runs.
    ///   - mode: The run loop mode in which to run the timer.
    ///   - options: Scheduler options passed to the timer.
    /// - Returns: A publisher that repeatedly emits the current date on the given interval, once
    ///   connected (`connect()` or `autoconnect()`).
    public static func publish(every interval: TimeInterval, tolerance: TimeInterval? = nil, on runLoop: RunLoop,
                               in mode: RunLoop.Mode, options: RunLoop.SchedulerOptions? = nil) -> TimerPublisher {
        TimerPublisher(interval: interval, runLoop: runLoop, mode: mode, options: options)
    }

    /// A publisher that repeatedly emits the current date on a given interval.
    ///
    /// Nothing is emitted before ``connect()``: each connection adds a repeating timer to the run
    /// loop in the mode, and every tick sends the same date to every subscriber that has demand
    /// (a subscriber without demand misses the tick). Cancelling a connection stops the
    /// publisher's ticks until the next `connect()`.
    public final class TimerPublisher: ConnectablePublisher {
        /// The kind of values published by this publisher: the date of each tick.
        public typealias Output = Date

        /// The kind of errors this publisher might publish: none.
        public typealias Failure = Never

        /// The interval between ticks.
        public let interval: TimeInterval

        /// The allowed timing variance of the ticks.
        public let tolerance: TimeInterval?

        /// The run loop the timer runs on.
        public let runLoop: RunLoop

        /// The run loop mode the timer runs in.
        public let mode: RunLoop.Mode

        /// Scheduler options passed to the timer.
        public let options: RunLoop.SchedulerOptions?

        /// Whether connected, and the subscriptions in subscription order (each tick reaches them in
        /// that order; a cancel leaves in O(1) amortised).
        private let state = Protected<(connected: Bool, subscribers: SlotList<TimerSubscriptionBase>)>((false, SlotList()))

        /// Creates a publisher that repeatedly emits the current date on the given interval.
        public init(interval: TimeInterval, tolerance: TimeInterval? = nil, runLoop: RunLoop, mode: RunLoop.Mode,
                    options: RunLoop.SchedulerOptions? = nil) {
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
        }

        /// Attaches the subscriber; it receives ticks once the publisher is connected.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            let subscription = TimerSubscription(downstream: subscriber) { [weak self] in self?.detach($0) }
            state.withLock { $0.subscribers.append(subscription) }
            subscriber.receive(subscription: subscription)
        }

        /// Starts a timer on the run loop; cancel the returned value to stop the ticks.
        public func connect() -> any Cancellable {
            state.withLock { $0.connected = true }
            // First tick one interval from now, as Apple's: swift-corelibs-foundation's
            // `Timer(timeInterval:repeats:block:)` would fire at once (its first fire date is now).
            let owner = WeakTimerPublisher(publisher: self)
            let timer = Timer(fire: Date(timeIntervalSinceNow: interval), interval: interval, repeats: true) { _ in
                owner.publisher?.tick()
            }
            if let tolerance { timer.tolerance = tolerance }
            runLoop.add(timer, forMode: mode)
            let handle = UncheckedTimer(timer)
            return TimerConnection { [weak self] in
                handle.timer.invalidate()
                self?.state.withLock { $0.connected = false }
            }
        }

        private func tick() {
            let date = Date()
            let subscribers = state.withLock { $0.connected ? $0.subscribers.slots : [] }
            for case let subscriber? in subscribers { subscriber.offer(date) }
        }

        private func detach(_ subscription: TimerSubscriptionBase) {
            state.withLock { _ = $0.subscribers.remove(subscription) }
        }
    }
}

/// The publisher, weakly, for the timer's `@Sendable` block. Unchecked: the publisher guards its
/// state with a lock, though it is not `Sendable` under the `AppleConcurrencyShape` trait.
private struct WeakTimerPublisher: @unchecked Sendable {
    weak var publisher: Timer.TimerPublisher?
}

/// The connection a `TimerPublisher` returns: cancelling it stops the timer. Like Apple's, it
/// describes nothing of itself.
private final class TimerConnection: Cancellable, @unchecked Sendable {
    private let stop = Protected<(() -> Void)?>(nil)
    init(_ stop: @escaping () -> Void) { self.stop.withLock { $0 = stop } }
    func cancel() {
        let stop = self.stop.withLock { s -> (() -> Void)? in
            defer { s = nil }
            return s
        }
        stop?()
    }
}

/// What the publisher keeps of a subscription: something to offer a tick to.
class TimerSubscriptionBase: SlotListElement, @unchecked Sendable {
    /// Its slot in the publisher's list; guarded by the publisher's lock.
    var slot: UInt32 = 0

    func offer(_ date: Date) {}
}

/// A subscription to a `TimerPublisher`: demand, and the subscriber while it is attached.
private final class TimerSubscription<Downstream: Subscriber>: TimerSubscriptionBase, Subscription, @unchecked Sendable
where Downstream.Input == Date, Downstream.Failure == Never {
    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var detach: ((TimerSubscriptionBase) -> Void)?

    init(downstream: Downstream, detach: @escaping (TimerSubscriptionBase) -> Void) {
        self.downstream = downstream
        self.detach = detach
    }

    override func offer(_ date: Date) {
        let downstream: Downstream? = lock.withLock {
            guard demand > .none, let downstream = self.downstream else { return nil }
            demand -= 1
            return downstream
        }
        guard let downstream else { return }
        let more = downstream.receive(date)
        if more > .none { lock.withLock { if self.downstream != nil { demand += more } } }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { if downstream != nil { self.demand += demand } }
    }

    func cancel() {
        let detach: ((TimerSubscriptionBase) -> Void)? = lock.withLock {
            downstream = nil
            defer { self.detach = nil }
            return self.detach
        }
        detach?(self)
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Timer.TimerPublisher: @unchecked Sendable {}
#endif
