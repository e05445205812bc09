/// A scheduler for performing synchronous actions.
///
/// You can only use this scheduler for immediate actions: every `schedule` method runs the action
/// at once, on the calling thread, before returning. If you schedule an action after a specific
/// date, this scheduler ignores the date (and any interval or tolerance) and performs it
/// immediately, once. Its time type carries no time: every instant is the same.
///
/// You cannot create instances of the immediate scheduler yourself; use ``shared``.
public struct ImmediateScheduler: Scheduler {
    /// The time type used by the immediate scheduler. All of its values are equal.
    public struct SchedulerTimeType: Strideable, Sendable {
        @inlinable
        init() {}

        /// Returns the distance to another immediate scheduler time; this distance is always `0`
        /// in the context of an immediate scheduler.
        ///
        /// - Parameter other: The other scheduler time.
        /// - Returns: `0`, as a `Stride`.
        @inlinable
        public func distance(to other: SchedulerTimeType) -> Stride {
            0
        }

        /// Advances the time by the specified amount; this is meaningless in the context of an
        /// immediate scheduler.
        ///
        /// - Parameter n: The amount to advance by. The `ImmediateScheduler` ignores this value.
        /// - Returns: An empty `SchedulerTimeType`.
        @inlinable
        public func advanced(by n: Stride) -> SchedulerTimeType {
            self
        }

        /// The increment by which the immediate scheduler counts time.
        ///
        /// A plain integer count: the `seconds`, `milliseconds`, `microseconds` and `nanoseconds`
        /// conversions all keep the number they are given (the immediate scheduler never waits, so
        /// strides carry no unit), and floating-point values are truncated.
        public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
            SchedulerTimeIntervalConvertible, Sendable
        {
            /// The type used when evaluating floating-point literals.
            public typealias FloatLiteralType = Double

            /// The type used when evaluating integer literals.
            public typealias IntegerLiteralType = Int

            /// The type used for expressing the stride's magnitude.
            public typealias Magnitude = Int

            /// The value of this time interval.
            public var magnitude: Int

            /// Creates an immediate scheduler time interval from the given time interval.
            @inlinable
            public init(_ value: Int) {
                magnitude = value
            }

            /// Creates an immediate scheduler time interval from an integer seconds value.
            @inlinable
            public init(integerLiteral value: Int) {
                magnitude = value
            }

            /// Creates an immediate scheduler time interval from a floating-point seconds value
            /// (truncated to an integer).
            @inlinable
            public init(floatLiteral value: Double) {
                magnitude = Int(value)
            }

            /// Creates an immediate scheduler time interval from a binary integer type, or `nil`
            /// if it does not fit in an `Int`.
            @inlinable
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                magnitude = value
            }

            /// Returns a Boolean value indicating whether the first stride is shorter than the second.
            @inlinable
            public static func < (lhs: Stride, rhs: Stride) -> Bool {
                lhs.magnitude < rhs.magnitude
            }

            /// Multiplies two strides.
            @inlinable
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(lhs.magnitude * rhs.magnitude)
            }

            /// Adds two strides.
            @inlinable
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(lhs.magnitude + rhs.magnitude)
            }

            /// Subtracts one stride from another.
            @inlinable
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(lhs.magnitude - rhs.magnitude)
            }

            /// Subtracts one stride from another, and stores the result in the first.
            @inlinable
            public static func -= (lhs: inout Stride, rhs: Stride) {
                lhs.magnitude -= rhs.magnitude
            }

            /// Multiplies two strides, and stores the result in the first.
            @inlinable
            public static func *= (lhs: inout Stride, rhs: Stride) {
                lhs.magnitude *= rhs.magnitude
            }

            /// Adds two strides, and stores the result in the first.
            @inlinable
            public static func += (lhs: inout Stride, rhs: Stride) {
                lhs.magnitude += rhs.magnitude
            }

            // Time does not pass on the immediate scheduler: as Apple's, every conversion from a
            // unit of time gives a zero stride.

            /// A zero stride: the immediate scheduler has no notion of seconds.
            @inlinable
            public static func seconds(_ s: Int) -> Stride {
                Stride(0)
            }

            /// A zero stride: the immediate scheduler has no notion of seconds.
            @inlinable
            public static func seconds(_ s: Double) -> Stride {
                Stride(0)
            }

            /// A zero stride: the immediate scheduler has no notion of milliseconds.
            @inlinable
            public static func milliseconds(_ ms: Int) -> Stride {
                Stride(0)
            }

            /// A zero stride: the immediate scheduler has no notion of microseconds.
            @inlinable
            public static func microseconds(_ us: Int) -> Stride {
                Stride(0)
            }

            /// A zero stride: the immediate scheduler has no notion of nanoseconds.
            @inlinable
            public static func nanoseconds(_ ns: Int) -> Stride {
                Stride(0)
            }
        }
    }

    /// A type that defines options accepted by the immediate scheduler: none.
    public typealias SchedulerOptions = Never

    #if AppleConcurrencyShape
    /// The shared instance of the immediate scheduler.
    ///
    /// You cannot create instances of the immediate scheduler yourself. Use only the shared
    /// instance.
    // Not `Sendable` under the trait, as Apple's; it has no state, so sharing it is safe.
    nonisolated(unsafe) public static let shared = ImmediateScheduler()
    #else
    /// The shared instance of the immediate scheduler.
    ///
    /// You cannot create instances of the immediate scheduler yourself. Use only the shared
    /// instance.
    public static let shared = ImmediateScheduler()
    #endif

    @inlinable
    init() {}

    /// Performs the action immediately, on the calling thread.
    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    /// The immediate scheduler's definition of the current moment in time.
    @inlinable
    public var now: SchedulerTimeType {
        SchedulerTimeType()
    }

    /// The minimum tolerance allowed by the immediate scheduler: zero.
    @inlinable
    public var minimumTolerance: SchedulerTimeType.Stride {
        0
    }

    /// Performs the action immediately; the immediate scheduler ignores `date`.
    @inlinable
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        action()
    }

    /// Performs the action once, immediately; the immediate scheduler ignores `date` and
    /// `interval`, so the action does not repeat.
    ///
    /// - Returns: A cancellable that does nothing, since the action has already run.
    @inlinable
    @discardableResult
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        action()
        return Subscriptions.empty
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension ImmediateScheduler: Sendable {}
#endif
