#if Server
import NIOCore
import Sluice

extension EventLoopScheduler {
    /// The event loop scheduler's time: a `NIODeadline`, read from the loop's own clock.
    public struct SchedulerTimeType: Strideable, Hashable, Sendable {
        /// The deadline this time stands for.
        public var deadline: NIODeadline

        /// A scheduler time at `deadline`.
        public init(_ deadline: NIODeadline) {
            self.deadline = deadline
        }

        /// The interval from this time to `other` (negative when `other` is earlier).
        public func distance(to other: SchedulerTimeType) -> Stride {
            Stride(other.deadline - deadline)
        }

        /// This time moved by `n`; saturates at `NIODeadline.distantFuture` and at the clock's zero,
        /// as `NIODeadline`'s arithmetic does.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(deadline + n.timeAmount)
        }

        /// An interval of the event loop scheduler: a `TimeAmount`, in nanoseconds. Integer and
        /// floating-point literals are seconds, as for the Dispatch scheduler.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Sendable
        {
            /// Floating-point literals are seconds.
            public typealias FloatLiteralType = Double
            /// Integer literals are seconds.
            public typealias IntegerLiteralType = Int
            /// Nanoseconds.
            public typealias Magnitude = Int

            /// The interval as a `TimeAmount`.
            public var timeAmount: TimeAmount

            /// The interval in nanoseconds.
            public var magnitude: Int { Int(timeAmount.nanoseconds) }

            /// An interval of `timeAmount`.
            public init(_ timeAmount: TimeAmount) {
                self.timeAmount = timeAmount
            }

            /// No time.
            public static var zero: Stride { Stride(.nanoseconds(0)) }

            /// An interval of `value` seconds.
            public init(floatLiteral value: Double) { self = .seconds(value) }

            /// An interval of `value` seconds.
            public init(integerLiteral value: Int) { self = .seconds(value) }

            /// An interval of `source` seconds, or `nil` if it does not fit in nanoseconds.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int64(exactly: source) else { return nil }
                let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !overflow else { return nil }
                timeAmount = .nanoseconds(ns)
            }

            /// Whether `lhs` is shorter than `rhs`.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.timeAmount < rhs.timeAmount }

            /// The product of two intervals taken as seconds (small products round to zero).
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                .nanoseconds(Int((Double(lhs.magnitude) * Double(rhs.magnitude) / 1_000_000_000).rounded(.towardZero)))
            }

            /// The sum of two intervals.
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.timeAmount + rhs.timeAmount) }

            /// The difference of two intervals.
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.timeAmount - rhs.timeAmount) }

            /// Multiplies in place.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }

            /// Adds in place.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// Subtracts in place.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }

            /// `s` seconds (saturating).
            public static func seconds(_ s: Int) -> Stride { scaled(s, by: 1_000_000_000) }

            /// `s` seconds (saturating).
            public static func seconds(_ s: Double) -> Stride {
                let ns = s * 1_000_000_000
                guard ns < 9_223_372_036_854_775_807.0 else { return .nanoseconds(.max) }
                guard ns > -9_223_372_036_854_775_808.0 else { return .nanoseconds(.min) }
                return .nanoseconds(Int(ns))
            }

            /// `ms` milliseconds (saturating).
            public static func milliseconds(_ ms: Int) -> Stride { scaled(ms, by: 1_000_000) }

            /// `us` microseconds (saturating).
            public static func microseconds(_ us: Int) -> Stride { scaled(us, by: 1_000) }

            /// `ns` nanoseconds.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(.nanoseconds(Int64(ns))) }

            private static func scaled(_ value: Int, by factor: Int) -> Stride {
                let (product, overflow) = value.multipliedReportingOverflow(by: factor)
                return .nanoseconds(overflow ? (value < 0 ? .min : .max) : product)
            }
        }
    }
}
#endif
