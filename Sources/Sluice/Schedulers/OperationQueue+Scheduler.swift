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
    public struct SchedulerOptions: Sendable {}

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// This scheduler's definition of the current moment in time: `Date()`.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Adds the action to the queue as a block operation.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedAction(action)
        addOperation(BlockOperation { work.run() })
    }

    /// Adds the action to the queue once `date` has come.
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        let work = UncheckedAction(action)
        let queue = UncheckedQueue(self)
        DispatchQueue.global().asyncAfter(wallDeadline: .now() + max(date.date.timeIntervalSinceNow, 0)) {
            queue.queue.addOperation(BlockOperation { work.run() })
        }
    }

    /// Adds the action to the queue at `date` and then every `interval`, until the returned value
    /// is cancelled.
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) -> any Cancellable {
        let work = UncheckedAction(action)
        let queue = UncheckedQueue(self)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { queue.queue.addOperation(BlockOperation { work.run() }) }
        timer.schedule(wallDeadline: .now() + max(date.date.timeIntervalSinceNow, 0), repeating: interval.timeInterval,
                       leeway: .nanoseconds(Int(tolerance.timeInterval * 1e9)))
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }
}

/// An operation queue carried onto a dispatch queue (`addOperation` is thread-safe).
struct UncheckedQueue: @unchecked Sendable {
    let queue: OperationQueue
    init(_ queue: OperationQueue) { self.queue = queue }
}
