import SluiceCore

/// `debounce` on the virtual-time scheduler below: `n` values sent into a `PassthroughSubject`,
/// time advanced after each by one tick, or by 20 after every fourth value. The debounce interval
/// being 10 ticks, every fourth value (3, 7, 11…) passes, its timer firing during the long
/// advance; the timers of the three before it are cancelled by the next value.
func debounceVirtualTime(_ n: Int) -> Int {
    var sum = 0
    let scheduler = VirtualTimeScheduler()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject
        .debounce(for: .nanoseconds(10), scheduler: scheduler)
        .sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        subject.send(value)
        scheduler.advance(by: .nanoseconds(value & 3 == 3 ? 20 : 1))
    }
    cancellable.cancel()
    return sum
}

/// A scheduler whose clock moves only in `advance(by:)`, which runs the actions falling due in
/// order of due time (ties: in the order they were scheduled), each with `now` set to its due
/// time. One tick of its clock counts as a nanosecond. Written once against the `Scheduler`
/// protocol, which both libraries spell the same.
final class VirtualTimeScheduler: Scheduler {
    /// An instant: ticks since the scheduler's creation.
    struct Time: Strideable, Hashable {
        var ticks: Int

        func distance(to other: Time) -> Interval { Interval(ticks: other.ticks &- ticks) }

        func advanced(by interval: Interval) -> Time { Time(ticks: ticks &+ interval.ticks) }
    }

    /// A number of ticks.
    struct Interval: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable {
        var ticks: Int

        init(ticks: Int) { self.ticks = ticks }
        init(integerLiteral value: Int) { ticks = value }
        init?<T: BinaryInteger>(exactly source: T) {
            guard let ticks = Int(exactly: source) else { return nil }
            self.ticks = ticks
        }

        var magnitude: UInt { ticks.magnitude }

        static func seconds(_ s: Int) -> Interval { Interval(ticks: s &* 1_000_000_000) }
        static func seconds(_ s: Double) -> Interval { Interval(ticks: Int(s * 1e9)) }
        static func milliseconds(_ ms: Int) -> Interval { Interval(ticks: ms &* 1_000_000) }
        static func microseconds(_ us: Int) -> Interval { Interval(ticks: us &* 1_000) }
        static func nanoseconds(_ ns: Int) -> Interval { Interval(ticks: ns) }

        static func < (lhs: Interval, rhs: Interval) -> Bool { lhs.ticks < rhs.ticks }
        static func + (lhs: Interval, rhs: Interval) -> Interval { Interval(ticks: lhs.ticks &+ rhs.ticks) }
        static func - (lhs: Interval, rhs: Interval) -> Interval { Interval(ticks: lhs.ticks &- rhs.ticks) }
        static func * (lhs: Interval, rhs: Interval) -> Interval { Interval(ticks: lhs.ticks &* rhs.ticks) }
        static func *= (lhs: inout Interval, rhs: Interval) { lhs = lhs * rhs }
    }

    /// A repeating action's handle: cancelling it stops the repetitions.
    final class Repetition: Cancellable {
        let interval: Int
        var isCancelled = false

        init(interval: Int) { self.interval = interval }

        func cancel() { isCancelled = true }
    }

    /// A scheduled action; `repetition` is nil for a one-off.
    struct Entry {
        var due: Int
        var order: Int
        let action: () -> Void
        let repetition: Repetition?
    }

    typealias SchedulerTimeType = Time
    typealias SchedulerOptions = Never

    private(set) var now = Time(ticks: 0)
    var minimumTolerance: Interval { Interval(ticks: 0) }

    /// The pending actions from `entries[head]` on, in order of (due, order).
    private var entries: [Entry] = []
    private var head = 0
    private var scheduled = 0

    private func insert(due: Int, action: @escaping () -> Void, repetition: Repetition?) {
        scheduled += 1
        var index = entries.endIndex
        while index > head, entries[index - 1].due > due {
            index -= 1
        }
        let entry = Entry(due: due, order: scheduled, action: action, repetition: repetition)
        if index == entries.endIndex {
            entries.append(entry)   // the usual case: a fixed interval from a clock that only moves forward
        } else {
            entries.insert(entry, at: index)
        }
    }

    func schedule(options: Never?, _ action: @escaping () -> Void) {
        insert(due: now.ticks, action: action, repetition: nil)
    }

    func schedule(after date: Time, tolerance: Interval, options: Never?, _ action: @escaping () -> Void) {
        insert(due: date.ticks, action: action, repetition: nil)
    }

    func schedule(
        after date: Time, interval: Interval, tolerance: Interval, options: Never?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        let repetition = Repetition(interval: max(interval.ticks, 1))
        insert(due: date.ticks, action: action, repetition: repetition)
        return repetition
    }

    /// Moves the clock forward by `interval`, running every action due by then.
    func advance(by interval: Interval) {
        let target = now.ticks &+ interval.ticks
        while head < entries.count, entries[head].due <= target {
            let entry = entries[head]
            head += 1
            if entry.due > now.ticks { now = Time(ticks: entry.due) }
            if let repetition = entry.repetition {
                guard !repetition.isCancelled else { continue }
                entry.action()
                if !repetition.isCancelled {
                    insert(due: now.ticks &+ repetition.interval, action: entry.action, repetition: repetition)
                }
            } else {
                entry.action()
            }
        }
        now = Time(ticks: target)
        if head >= 64, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
