import SluiceCore

/// A scheduler whose clock moves only when the test moves it: deterministic tests of time-based
/// operators, with no sleeping.
///
/// Work scheduled on it waits until ``advance(by:)``, ``advance(to:)`` or ``run()`` moves the clock
/// past its date. Actions due at the same instant run in the order they were scheduled; an action
/// that schedules more work due within the same advance sees it run in that advance too.
/// Repeating schedules (`schedule(after:interval:tolerance:options:_:)`) run at every interval
/// until their `Cancellable` is cancelled. Tolerances and options are ignored.
///
/// It is generic over the time and options types of the scheduler it stands in for, so code written
/// against `DispatchQueue`, `RunLoop` or `OperationQueue` (through generics) can be handed
/// `DispatchQueue.test`, `RunLoop.test` or `OperationQueue.test` (module `Sluice`), and code that
/// needs no Foundation can use ``VirtualTime``:
///
/// ```swift
/// let scheduler = TestScheduler<VirtualTime, Never>()
/// let subscriber = TestSubscriber<String, Never>()
/// searches.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(subscriber)
/// searches.send("s"); searches.send("sw")
/// scheduler.advance(by: .milliseconds(299))   // nothing yet
/// scheduler.advance(by: .milliseconds(1))     // "sw"
/// ```
///
/// Thread-safe: work may be scheduled from any thread; actions run on the thread that advances the
/// clock, with no lock held.
public final class TestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
    private struct Work {
        let id: Int
        var date: SchedulerTimeType
        let interval: SchedulerTimeType.Stride?
        let action: () -> Void
    }

    private let state: Protected<(now: SchedulerTimeType, nextID: Int, queue: [Work])>

    /// Creates a scheduler whose clock starts at `now`.
    public init(now: SchedulerTimeType) {
        state = Protected((now, 0, []))
    }

    /// The scheduler's current instant: where the last advance left the clock.
    public var now: SchedulerTimeType { state.withLock { $0.now } }

    /// Zero: the test scheduler runs work exactly when it is due.
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// How many actions are waiting to run (repeating ones count once).
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// Schedules `action` to run at the current instant, at the next advance.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        enqueue(at: nil, interval: nil, action)
    }

    /// Schedules `action` to run when the clock reaches `date` (at once, at the next advance, if
    /// `date` has passed).
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        enqueue(at: date, interval: nil, action)
    }

    /// Schedules `action` to run when the clock reaches `date` and then every `interval`, until
    /// the returned value is cancelled.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        let id = enqueue(at: date, interval: interval, action)
        return AnyCancellable { [weak self] in
            self?.state.withLock { $0.queue.removeAll { $0.id == id } }
        }
    }

    /// Moves the clock forward by `stride` (zero: runs what is due now), running every action that
    /// comes due on the way, in order of date, then of scheduling.
    public func advance(by stride: SchedulerTimeType.Stride = .zero) {
        advance(to: now.advanced(by: stride))
    }

    /// Moves the clock to `instant`, running every action that comes due on the way. The clock
    /// never moves backwards: an instant in the past runs what is due now.
    public func advance(to instant: SchedulerTimeType) {
        let target = max(instant, now)
        while let work = nextDue(until: target) {
            work.action()
        }
        state.withLock { if $0.now < target { $0.now = target } }
    }

    /// Runs every scheduled action, moving the clock as far as needed, until no work is left.
    /// Repeating schedules must be cancelled first, or this never returns.
    public func run() {
        while let date = state.withLock({ $0.queue.map(\.date).min() }) {
            advance(to: date)
        }
    }

    @discardableResult
    private func enqueue(at date: SchedulerTimeType?, interval: SchedulerTimeType.Stride?, _ action: @escaping () -> Void) -> Int {
        state.withLock {
            let id = $0.nextID
            $0.nextID += 1
            $0.queue.append(Work(id: id, date: date ?? $0.now, interval: interval, action: action))
            return id
        }
    }

    /// Under the lock: removes the earliest work due at or before `limit` (the first scheduled among
    /// equals), moves the clock to its date, and puts a repeating one back for its next date.
    private func nextDue(until limit: SchedulerTimeType) -> Work? {
        state.withLock { s -> Work? in
            var best: Int?
            for (index, work) in s.queue.enumerated() where work.date <= limit {
                if let b = best {
                    let current = s.queue[b]
                    if work.date < current.date || (work.date == current.date && work.id < current.id) { best = index }
                } else {
                    best = index
                }
            }
            guard let index = best else { return nil }
            let work = s.queue.remove(at: index)
            if s.now < work.date { s.now = work.date }
            if let interval = work.interval {
                var next = work
                next.date = work.date.advanced(by: interval)
                s.queue.append(next)
            }
            return work
        }
    }
}

extension TestScheduler where SchedulerTimeType == VirtualTime {
    /// Creates a scheduler on virtual time, starting at zero.
    public convenience init() {
        self.init(now: .zero)
    }
}
