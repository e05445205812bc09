import Dispatch
import Foundation
import SluiceCore

extension DispatchQueue: Scheduler {
    /// Scheduler time type for the dispatch queue scheduler: a `DispatchTime`.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time represented by this type.
        public var dispatchTime: DispatchTime

        /// Creates a dispatch queue time type instance.
        public init(_ time: DispatchTime) {
            dispatchTime = time
        }

        /// Returns the distance to another dispatch queue time. Saturates at `Int.max`
        /// nanoseconds when either time lies beyond it (such as `DispatchTime.distantFuture`).
        public func distance(to other: SchedulerTimeType) -> Stride {
            let (from, to) = (dispatchTime.uptimeNanoseconds, other.dispatchTime.uptimeNanoseconds)
            if from == to { return .nanoseconds(0) }
            guard from <= UInt64(Int.max), to <= UInt64(Int.max) else { return .nanoseconds(.max) }
            return .nanoseconds(Int(to) - Int(from))
        }

        /// Returns a dispatch queue scheduler time calculated by advancing this instance's time by
        /// the given interval; saturates at `DispatchTime.distantFuture`, and never goes below the
        /// first instant.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            let base = dispatchTime.uptimeNanoseconds
            if n.magnitude >= 0 {
                let (sum, overflow) = base.addingReportingOverflow(UInt64(n.magnitude))
                return SchedulerTimeType(overflow || sum > UInt64(Int64.max)
                    ? .distantFuture : DispatchTime(uptimeNanoseconds: sum))
            }
            let back = UInt64(n.magnitude.magnitude)
            return SchedulerTimeType(DispatchTime(uptimeNanoseconds: base > back ? max(base - back, 1) : 1))
        }

        /// Hashes the dispatch time's raw value.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(dispatchTime.rawValue)
        }

        /// Two times are equal when their dispatch times are.
        public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime == rhs.dispatchTime
        }

        /// Decodes a time from a single unsigned integer: its uptime in nanoseconds.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            dispatchTime = DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self))
        }

        /// Encodes the time as a single unsigned integer: its uptime in nanoseconds.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        /// A type that represents the distance between two values, in nanoseconds. Integer and
        /// floating-point literals are seconds.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Codable, Sendable
        {
            /// If created via floating point literal, the value is converted to nanoseconds via
            /// multiplication.
            public typealias FloatLiteralType = Double

            /// Nanoseconds, same as `DispatchTimeInterval.nanoseconds`.
            public typealias IntegerLiteralType = Int

            /// A type that can represent the absolute value of any possible value of the
            /// conforming type.
            public typealias Magnitude = Int

            /// The value of this time interval in nanoseconds.
            public var magnitude: Int

            private enum CodingKeys: String, CodingKey {
                case magnitude = "_nanoseconds"
            }

            /// A `DispatchTimeInterval` created with the value of this type in nanoseconds.
            public var timeInterval: DispatchTimeInterval { .nanoseconds(magnitude) }

            /// Creates a dispatch queue time interval from the given dispatch time interval
            /// (`.never` is `Int.max` nanoseconds; out-of-range values saturate).
            public init(_ timeInterval: DispatchTimeInterval) {
                switch timeInterval {
                case .seconds(let s): magnitude = Self.saturating(s, times: 1_000_000_000)
                case .milliseconds(let ms): magnitude = Self.saturating(ms, times: 1_000_000)
                case .microseconds(let us): magnitude = Self.saturating(us, times: 1_000)
                case .nanoseconds(let ns): magnitude = ns
                case .never: magnitude = .max
                @unknown default: magnitude = .max
                }
            }

            private init(nanoseconds: Int) {
                magnitude = nanoseconds
            }

            /// Creates a dispatch queue time interval from a floating-point seconds value.
            public init(floatLiteral value: Double) {
                self = .seconds(value)
            }

            /// Creates a dispatch queue time interval from an integer seconds value.
            public init(integerLiteral value: Int) {
                self = .seconds(value)
            }

            /// Creates a dispatch queue time interval from a binary integer count of seconds, or
            /// `nil` if it does not fit.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int(exactly: source) else { return nil }
                let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !overflow else { return nil }
                magnitude = ns
            }

            private static func saturating(_ value: Int, times factor: Int) -> Int {
                let (product, overflow) = value.multipliedReportingOverflow(by: factor)
                return overflow ? (value < 0 ? .min : .max) : product
            }

            /// Returns a Boolean value indicating whether the first interval is shorter than the
            /// second.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }

            /// Multiplies two intervals as seconds (the product of two durations is returned in
            /// the same unit, so small products round to zero).
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: Int((Double(lhs.magnitude) * Double(rhs.magnitude) / 1_000_000_000).rounded(.towardZero)))
            }

            /// Adds two intervals.
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: lhs.magnitude + rhs.magnitude) }

            /// Subtracts one interval from another.
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: lhs.magnitude - rhs.magnitude) }

            /// Subtracts one interval from another, in place.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }

            /// Multiplies two intervals, in place.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }

            /// Adds two intervals, in place.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// Converts the specified number of seconds into an interval (saturating).
            public static func seconds(_ s: Int) -> Stride { Stride(.seconds(s)) }

            /// Converts the specified number of seconds, as a floating-point value, into an
            /// interval (saturating).
            public static func seconds(_ s: Double) -> Stride {
                let ns = s * 1_000_000_000
                guard ns < 9_223_372_036_854_775_807.0 else { return Stride(nanoseconds: .max) }
                guard ns > -9_223_372_036_854_775_808.0 else { return Stride(nanoseconds: .min) }
                return Stride(nanoseconds: Int(ns))
            }

            /// Converts the specified number of milliseconds into an interval (saturating).
            public static func milliseconds(_ ms: Int) -> Stride { Stride(.milliseconds(ms)) }

            /// Converts the specified number of microseconds into an interval (saturating).
            public static func microseconds(_ us: Int) -> Stride { Stride(.microseconds(us)) }

            /// Converts the specified number of nanoseconds into an interval.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }
        }
    }

    /// Options that affect the operation of the dispatch queue scheduler.
    public struct SchedulerOptions {
        /// The dispatch queue quality of service.
        public var qos: DispatchQoS

        /// The dispatch queue work item flags.
        public var flags: DispatchWorkItemFlags

        /// The dispatch group, if any, that should be used for performing actions.
        public var group: DispatchGroup?

        /// Creates dispatch queue scheduler options.
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// This scheduler's definition of the current moment in time: `DispatchTime.now()`.
    public var now: SchedulerTimeType { SchedulerTimeType(.now()) }

    /// Performs the action asynchronously on the queue, with the options' quality of service,
    /// flags and group.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedAction(action)
        let qos = options?.qos ?? .unspecified
        let flags = options?.flags ?? []
        if let group = options?.group {
            async(group: group, qos: qos, flags: flags) { work.run() }
        } else {
            // The action itself goes to the queue, not a closure around it: one allocation fewer
            // per action (`receive(on:)` schedules one per value).
            async(qos: qos, flags: flags, execute: work.sendable)
        }
    }

    /// Performs the action on the queue at `date` (the tolerance is not used by dispatch).
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        let work = UncheckedAction(action)
        asyncAfter(deadline: date.dispatchTime, qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) { work.run() }
    }

    /// Performs the action on the queue at `date` and then every `interval`, with `tolerance` as
    /// the timer's leeway, until the returned `AnyCancellable` is cancelled.
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) -> any Cancellable {
        let work = UncheckedAction(action)
        let timer = DispatchSource.makeTimerSource(queue: self)
        timer.setEventHandler(qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) { work.run() }
        timer.schedule(deadline: date.dispatchTime, repeating: interval.timeInterval, leeway: tolerance.timeInterval)
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }
}

extension DispatchQueue: RepeatingScheduler {
    /// Makes `action` a block once; each call of the returned function enqueues that same block,
    /// as `schedule(options:_:)` enqueues a new one: the queue then only allocates its own record
    /// of the work.
    @usableFromInline package func repeater(for action: @escaping () -> Void, options: SchedulerOptions?) -> () -> Void {
        let block: @Sendable @convention(block) () -> Void = UncheckedAction(action).sendable
        let qos = options?.qos ?? .unspecified
        let flags = options?.flags ?? []
        guard let group = options?.group else {
            return { self.async(qos: qos, flags: flags, execute: block) }
        }
        return { self.async(group: group, qos: qos, flags: flags, execute: block) }
    }
}

/// A scheduled action, carried across to the queue. Combine's scheduler API takes plain closures
/// (source compatibility); the queue runs each exactly once (or per timer fire), never concurrently
/// with itself for a serial queue.
struct UncheckedAction: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }

    /// The action itself, typed as the `@Sendable` closure it is used as (this type's
    /// `@unchecked Sendable` is the proof): handing it on as it is spares the closure that would
    /// wrap `run`. The cast is of the whole struct, whose one field has the same layout in both:
    /// cast alone, a closure would go through reabstraction thunks (an allocation each).
    var sendable: @Sendable () -> Void { unsafeBitCast(self, to: SendableAction.self).run }
}

/// ``UncheckedAction``'s layout, with the closure typed `@Sendable`.
private struct SendableAction: Sendable {
    let run: @Sendable () -> Void
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension DispatchQueue.SchedulerOptions: @unchecked Sendable {}
#endif
