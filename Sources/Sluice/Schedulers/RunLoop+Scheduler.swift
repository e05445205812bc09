import Foundation
import SluiceCore

extension RunLoop: Scheduler {
    /// The scheduler time type used by the run loop: a `Date`.
    public struct SchedulerTimeType: _DateBackedSchedulerTime, @unchecked Sendable {
        /// The date represented by this type.
        public var date: Date

        /// Initializes a run loop scheduler time with the given date.
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

    /// Options that affect the operation of the run loop scheduler: none.
    public struct SchedulerOptions {}

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// This scheduler's definition of the current moment in time: `Date()`.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Performs the action the next time the run loop runs (`perform(_:)`).
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedAction(action)
        perform { work.run() }
    }

    /// Performs the action when the run loop runs at or after `date`, through a one-shot timer
    /// added in the default mode.
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        let work = UncheckedAction(action)
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in work.run() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
    }

    /// Performs the action at `date` and then every `interval`, while the run loop runs, through
    /// a repeating timer; cancelling the returned value invalidates the timer.
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) -> any Cancellable {
        let work = UncheckedAction(action)
        let timer = Timer(fire: date.date, interval: interval.timeInterval, repeats: true) { _ in work.run() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
        let handle = UncheckedTimer(timer)
        return AnyCancellable { handle.timer.invalidate() }
    }
}

/// A timer carried into a cancellation closure (`invalidate()` is thread-safe for the purpose).
struct UncheckedTimer: @unchecked Sendable {
    let timer: Timer
    init(_ timer: Timer) { self.timer = timer }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension RunLoop.SchedulerOptions: Sendable {}
#endif
