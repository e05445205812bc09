import Foundation
import SluiceCore

/// What `RunLoop.SchedulerTimeType` and `OperationQueue.SchedulerTimeType` share: a `Date`, and
/// the arithmetic that goes with it. An implementation detail: each scheduler has a distinct
/// time type (as in Apple's Combine), and this protocol gives both one implementation.
public protocol _DateBackedSchedulerTime: Strideable, Codable, Hashable where Stride: _TimeIntervalBackedStride {
    /// The date represented by this time.
    var date: Date { get set }
    /// Creates a time with the given date.
    init(_ date: Date)
}

extension _DateBackedSchedulerTime {
    /// Returns the distance to another time, in seconds.
    public func distance(to other: Self) -> Stride {
        Stride(other.date.timeIntervalSince(date))
    }

    /// Returns a time advanced by the given interval.
    public func advanced(by n: Stride) -> Self {
        Self(date.addingTimeInterval(n.timeInterval))
    }
}

/// What the strides of `RunLoop` and `OperationQueue` share: a `TimeInterval` (seconds) and its
/// arithmetic. An implementation detail, like ``_DateBackedSchedulerTime``.
public protocol _TimeIntervalBackedStride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
    SchedulerTimeIntervalConvertible where Magnitude == TimeInterval, IntegerLiteralType == TimeInterval,
    FloatLiteralType == TimeInterval
{
    /// The value of this time interval in seconds.
    var magnitude: TimeInterval { get set }
    /// Creates a stride from a number of seconds.
    init(_ timeInterval: TimeInterval)
}

extension _TimeIntervalBackedStride {
    /// The value of this time interval in seconds.
    public var timeInterval: TimeInterval { magnitude }

    /// Creates a stride from a number of seconds.
    public init(integerLiteral value: TimeInterval) { self.init(value) }

    /// Creates a stride from a number of seconds.
    public init(floatLiteral value: TimeInterval) { self.init(value) }

    /// Creates a stride from a binary integer count of seconds, or `nil` if it cannot be
    /// represented exactly.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = TimeInterval(exactly: source) else { return nil }
        self.init(value)
    }

    /// Returns a Boolean value indicating whether the first stride is shorter than the second.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.magnitude < rhs.magnitude }

    /// Multiplies two strides (as seconds).
    public static func * (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude * rhs.magnitude) }

    /// Adds two strides.
    public static func + (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude + rhs.magnitude) }

    /// Subtracts one stride from another.
    public static func - (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude - rhs.magnitude) }

    /// Subtracts one stride from another, in place.
    public static func -= (lhs: inout Self, rhs: Self) { lhs.magnitude -= rhs.magnitude }

    /// Multiplies two strides, in place.
    public static func *= (lhs: inout Self, rhs: Self) { lhs.magnitude *= rhs.magnitude }

    /// Adds two strides, in place.
    public static func += (lhs: inout Self, rhs: Self) { lhs.magnitude += rhs.magnitude }

    /// Converts the specified number of seconds into a stride.
    public static func seconds(_ s: Int) -> Self { Self(TimeInterval(s)) }

    /// Converts the specified number of seconds, as a floating-point value, into a stride.
    public static func seconds(_ s: Double) -> Self { Self(s) }

    /// Converts the specified number of milliseconds into a stride.
    public static func milliseconds(_ ms: Int) -> Self { Self(TimeInterval(ms) / 1_000) }

    /// Converts the specified number of microseconds into a stride.
    public static func microseconds(_ us: Int) -> Self { Self(TimeInterval(us) / 1_000_000) }

    /// Converts the specified number of nanoseconds into a stride.
    public static func nanoseconds(_ ns: Int) -> Self { Self(TimeInterval(ns) / 1_000_000_000) }
}
