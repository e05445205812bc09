import SluiceCore

/// An instant on a virtual clock, counted in nanoseconds from zero: the time type of a
/// ``TestScheduler`` that stands in for no particular Foundation scheduler.
public struct VirtualTime: Strideable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's zero.
    public var nanoseconds: Int

    /// The clock's zero.
    public static let zero = VirtualTime(nanoseconds: 0)

    /// The instant `nanoseconds` after zero.
    public init(nanoseconds: Int) {
        self.nanoseconds = nanoseconds
    }

    /// The distance from this instant to `other`.
    public func distance(to other: VirtualTime) -> Stride {
        Stride(nanoseconds: other.nanoseconds - nanoseconds)
    }

    /// The instant `n` after this one.
    public func advanced(by n: Stride) -> VirtualTime {
        VirtualTime(nanoseconds: nanoseconds + n.magnitude)
    }

    /// `t+1.5s`-style: the time since zero, in seconds.
    public var description: String { "t+\(Double(nanoseconds) / 1e9)s" }

    /// A distance between two virtual instants, in nanoseconds; integer and floating-point
    /// literals are seconds, as with Apple's scheduler strides.
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable, Sendable,
        ExpressibleByFloatLiteral, CustomStringConvertible
    {
        /// The distance in nanoseconds.
        public var magnitude: Int

        /// A distance of `nanoseconds`.
        public init(nanoseconds: Int) { magnitude = nanoseconds }

        /// `value` seconds.
        public init(integerLiteral value: Int) { magnitude = value * 1_000_000_000 }

        /// `value` seconds.
        public init(floatLiteral value: Double) { magnitude = Int(value * 1e9) }

        /// `source` seconds, or `nil` if it does not fit.
        public init?<T: BinaryInteger>(exactly source: T) {
            guard let seconds = Int(exactly: source) else { return nil }
            let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            guard !overflow else { return nil }
            magnitude = ns
        }

        public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
        public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: lhs.magnitude + rhs.magnitude) }
        public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: lhs.magnitude - rhs.magnitude) }
        /// Multiplies the nanosecond counts.
        public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: lhs.magnitude * rhs.magnitude) }
        public static func += (lhs: inout Stride, rhs: Stride) { lhs.magnitude += rhs.magnitude }
        public static func -= (lhs: inout Stride, rhs: Stride) { lhs.magnitude -= rhs.magnitude }
        public static func *= (lhs: inout Stride, rhs: Stride) { lhs.magnitude *= rhs.magnitude }

        public static func seconds(_ s: Int) -> Stride { Stride(nanoseconds: s * 1_000_000_000) }
        public static func seconds(_ s: Double) -> Stride { Stride(nanoseconds: Int(s * 1e9)) }
        public static func milliseconds(_ ms: Int) -> Stride { Stride(nanoseconds: ms * 1_000_000) }
        public static func microseconds(_ us: Int) -> Stride { Stride(nanoseconds: us * 1_000) }
        public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }

        /// `1.5s`-style.
        public var description: String { "\(Double(magnitude) / 1e9)s" }
    }
}
