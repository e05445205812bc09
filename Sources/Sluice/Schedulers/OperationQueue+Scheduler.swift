import Dispatch
import Foundation
import SluiceCore

extension OperationQueue: Scheduler {
    /// The scheduler time type used by the operation queue: a `Date`.
    public struct SchedulerTimeType: _DateBackedSchedulerTime, @unchecked Sendable {
        /// The date represented by this type.
        public var date: Date

        /// Initializes a operation queue scheduler time with the given date.
        public init(_ date: Date) {
            self.date = date
        }

        /// The interval by which scheduler times advance: a `TimeInterval` (seconds).
        public struct Stride: _TimeIntervalBackedStride, @unchecked Sendable {
            /// The type used when evaluating floating-point literals.
            public typealias FloatLiteralType = TimeInterval

            /// The type used when evaluating integer literals.
            public typealias IntegerLiteralType = TimeInterval

            /// The type used for expressing the stride's magnitude.
            public typealias Magnitude = TimeInterval

            /// The value of this time interval in seconds.
            public var magnitude: TimeInterval

            /// Creates a stride from a number of seconds.
            public init(_ timeInterval: TimeInterval) {
                magnitude = timeInterval
            }
        }
    }

    /// Options that affect the operation of the operation queue scheduler: none.
    public struct SchedulerOptions {}

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// This scheduler's definition of the current moment in time: `Date()`.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Adds the action to the queue as a block operation.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedAction(action)
        addOperation(BlockOperation { work.run() })
    }

    /// Adds an operation for the action to the queue at once; the operation becomes ready, and so
    /// runs, once `date` has come. As Apple's, it is not a `BlockOperation`, and it is
    /// `Cancellable`: cancelling it before it runs drops the action.
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        addOperation(DelayedActionOperation(due: date.date, action: action))
    }

    /// Runs the action at `date` and then every `interval`, until the returned value is cancelled:
    /// one operation at a time is on the queue, and each adds the next before running the action.
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) -> any Cancellable {
        let repetition = RepeatedOperations(queue: self, interval: interval.timeInterval, action: action)
        repetition.enqueue(due: date.date)
        return AnyCancellable { repetition.cancel() }
    }
}

/// An operation that is not ready until its due date, then runs its action once (`main()` does
/// nothing after that, or after a cancel).
final class DelayedActionOperation: Operation, Cancellable, @unchecked Sendable {
    private let action: () -> Void
    private let lock = NSLock()
    private var due = false
    private var ran = false

    init(due date: Date, action: @escaping () -> Void) {
        self.action = action
        super.init()
        let wait = date.timeIntervalSinceNow
        if wait <= 0 {
            due = true
        } else {
            DispatchQueue.global().asyncAfter(wallDeadline: .now() + wait) { [weak self] in self?.becomeDue() }
        }
    }

    private func becomeDue() {
        willChangeValue(forKey: "isReady")
        lock.withLock { due = true }
        didChangeValue(forKey: "isReady")
    }

    override var isReady: Bool {
        (lock.withLock { due } || isCancelled) && super.isReady
    }

    override func main() {
        let run = lock.withLock { () -> Bool in
            guard !ran, !isCancelled else { return false }
            ran = true
            return true
        }
        if run { action() }
    }
}

/// The operations of a repeating schedule: one at a time on the queue, each due `interval` after
/// the previous one.
final class RepeatedOperations: @unchecked Sendable {
    private let queue: OperationQueue
    private let interval: TimeInterval
    private let action: () -> Void
    private let lock = NSLock()
    private var current: DelayedActionOperation?
    private var cancelled = false

    init(queue: OperationQueue, interval: TimeInterval, action: @escaping () -> Void) {
        self.queue = queue
        self.interval = interval
        self.action = action
    }

    /// Adds the operation due at `date`; when it runs, it adds the next one, then runs the action.
    func enqueue(due date: Date) {
        let operation = DelayedActionOperation(due: date) { [self] in
            enqueue(due: date + interval)
            action()
        }
        let keep = lock.withLock { () -> Bool in
            guard !cancelled else { return false }
            current = operation
            return true
        }
        if keep { queue.addOperation(operation) }
    }

    func cancel() {
        let operation: DelayedActionOperation? = lock.withLock {
            cancelled = true
            defer { current = nil }
            return current
        }
        operation?.cancel()
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension OperationQueue.SchedulerOptions: Sendable {}
#endif
