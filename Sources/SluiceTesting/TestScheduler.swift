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
    private let state: Protected<State>

    /// Creates a scheduler whose clock starts at `now`.
    public init(now: SchedulerTimeType) {
        state = Protected(State(now: now))
    }

    /// The scheduler's current instant: where the last advance left the clock.
    public var now: SchedulerTimeType { state.withLock { $0.now } }

    /// Zero: the test scheduler runs work exactly when it is due.
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// How many actions are waiting to run (repeating ones count once, cancelled ones not at all).
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
            self?.state.withLock { $0.queue.cancel(id) }
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
        while let date = state.withLock({ $0.queue.earliestDate() }) {
            advance(to: date)
        }
    }

    @discardableResult
    private func enqueue(at date: SchedulerTimeType?, interval: SchedulerTimeType.Stride?, _ action: @escaping () -> Void) -> Int {
        state.withLock {
            let id = $0.nextID
            $0.nextID += 1
            $0.queue.insert(Work(id: id, date: date ?? $0.now, interval: interval, action: action))
            return id
        }
    }

    /// Under the lock: removes the earliest work due at or before `limit` (the first scheduled among
    /// equals), moves the clock to its date, and puts a repeating one back for its next date.
    private func nextDue(until limit: SchedulerTimeType) -> Work? {
        state.withLock { s -> Work? in
            guard let work = s.queue.popEarliest(until: limit) else { return nil }
            if s.now < work.date { s.now = work.date }
            if let interval = work.interval {
                var next = work
                next.date = work.date.advanced(by: interval)
                s.queue.reinsert(next)
            }
            return work
        }
    }

    /// One scheduled action. `id` is its place in scheduling order; a repeating action keeps its
    /// `id` from one run to the next, so among actions due at the same instant it keeps its place.
    private struct Work {
        let id: Int
        var date: SchedulerTimeType
        let interval: SchedulerTimeType.Stride?
        let action: () -> Void

        /// Due earlier, or due at the same instant and scheduled earlier. `id`s are unique among
        /// queued work, so this is a total order and the queue's order is fully determined.
        func precedes(_ other: Work) -> Bool {
            date < other.date || (date == other.date && id < other.id)
        }
    }

    /// What the lock guards.
    private struct State {
        var now: SchedulerTimeType
        var nextID = 0
        var queue = WorkQueue()
    }

    /// The scheduled work, earliest first: a binary min-heap ordered by `Work.precedes(_:)`.
    ///
    /// Inserting and removing the earliest take O(log n). Only repeating work can be cancelled (the
    /// other schedules return no handle); cancelling one takes its id out of `repeating` and leaves
    /// its entry in the heap as a tombstone, thrown away when it reaches the top. When tombstones
    /// outnumber live entries the heap is rebuilt without them, in time linear in its size, so
    /// cancelling costs O(1) amortised and cancelled work does not pile up in the heap.
    private struct WorkQueue {
        private var heap: [Work] = []
        /// Ids of repeating work not yet cancelled: each has exactly one entry in `heap`.
        private var repeating: Set<Int> = []
        /// Entries of `heap` that are cancelled repeating work.
        private var tombstones = 0

        /// The number of actions waiting to run, not counting cancelled ones.
        var count: Int { heap.count - tombstones }

        /// Queues newly scheduled work.
        mutating func insert(_ work: Work) {
            if work.interval != nil { repeating.insert(work.id) }
            push(work)
        }

        /// Queues repeating work again, for its next date, after `popEarliest(until:)` removed it.
        mutating func reinsert(_ work: Work) {
            push(work)
        }

        /// Cancels the repeating work `id`; does nothing if it is already cancelled.
        mutating func cancel(_ id: Int) {
            guard repeating.remove(id) != nil else { return }
            tombstones += 1
            if tombstones * 2 > heap.count { removeTombstones() }
        }

        /// The date of the earliest live work, or `nil` if there is none.
        mutating func earliestDate() -> SchedulerTimeType? {
            dropCancelledTop()
            return heap.first?.date
        }

        /// Removes and returns the earliest live work if it is due at or before `limit`.
        mutating func popEarliest(until limit: SchedulerTimeType) -> Work? {
            dropCancelledTop()
            guard let first = heap.first, first.date <= limit else { return nil }
            return popTop()
        }

        private func isCancelled(_ work: Work) -> Bool {
            work.interval != nil && !repeating.contains(work.id)
        }

        private mutating func dropCancelledTop() {
            while let first = heap.first, isCancelled(first) {
                _ = popTop()
                tombstones -= 1
            }
        }

        private mutating func removeTombstones() {
            let live = repeating
            heap.removeAll { $0.interval != nil && !live.contains($0.id) }
            tombstones = 0
            // Floyd's construction: sift down every parent, the last first.
            var index = heap.count / 2
            while index > 0 {
                index -= 1
                siftDown(from: index)
            }
        }

        private mutating func push(_ work: Work) {
            heap.append(work)
            siftUp(from: heap.count - 1)
        }

        /// Removes the root. The heap must not be empty.
        private mutating func popTop() -> Work {
            let last = heap.removeLast()
            guard !heap.isEmpty else { return last }
            let top = heap[0]
            heap[0] = last
            siftDown(from: 0)
            return top
        }

        private mutating func siftUp(from start: Int) {
            var child = start
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].precedes(heap[parent]) else { return }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func siftDown(from start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                let right = left + 1
                let child = right < heap.count && heap[right].precedes(heap[left]) ? right : left
                guard heap[child].precedes(heap[parent]) else { return }
                heap.swapAt(child, parent)
                parent = child
            }
        }
    }
}

extension TestScheduler where SchedulerTimeType == VirtualTime {
    /// Creates a scheduler on virtual time, starting at zero.
    public convenience init() {
        self.init(now: .zero)
    }
}
