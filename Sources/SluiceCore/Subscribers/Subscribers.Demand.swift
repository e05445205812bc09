extension Subscribers {
    /// A requested number of items, sent to a publisher from a subscriber through the subscription.
    ///
    /// Demand is either ``unlimited`` or a finite ``max(_:)``. Its arithmetic saturates: anything
    /// added to or subtracted from `.unlimited` stays `.unlimited`, a finite demand never goes below
    /// `.max(0)` (``none``), and a sum too large for `Int` becomes `.unlimited`.
    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible, Sendable {
        /// The demand count; `UInt.max` means unlimited.
        @usableFromInline
        let rawValue: UInt

        @inlinable
        init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        // `unlimited` is computed and inlinable rather than stored (`static let`): code inlined
        // into another module would otherwise call an accessor of the global each time it compares
        // a demand with it. (`none` stays stored: folded the same way, it made the optimiser keep
        // a sink's closure retained around each call in synchronous chains, +12 % instructions.)
        @inlinable
        static var unlimitedRaw: UInt { UInt.max }

        /// A request for as many values as the publisher can produce.
        @inlinable
        public static var unlimited: Demand { Demand(rawValue: unlimitedRaw) }

        /// A request for no elements from the publisher. Requesting it through
        /// ``Subscription/request(_:)`` is a programmer error.
        public static let none = Demand(rawValue: 0)

        /// Creates a demand for the given maximum number of elements.
        ///
        /// The publisher is free to send fewer than the requested maximum number of elements.
        /// - Parameter value: The maximum number of elements. A negative value stops the program.
        @inlinable
        public static func max(_ value: Int) -> Demand {
            precondition(value >= 0, "Subscribers.Demand.max(_:) requires a non-negative count; got \(value)")
            return Demand(rawValue: UInt(value))
        }

        /// The number of requested values, or `nil` if the demand is ``unlimited``.
        @inlinable
        public var max: Int? {
            rawValue == Demand.unlimitedRaw ? nil : Int(rawValue)
        }

        /// `"unlimited"` or `"max(n)"`.
        public var description: String {
            rawValue == Demand.unlimitedRaw ? "unlimited" : "max(\(rawValue))"
        }

        // MARK: Arithmetic

        /// Adds two demands. When adding any value to `.unlimited`, the result is `.unlimited`.
        @inlinable
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == unlimitedRaw || rhs.rawValue == unlimitedRaw { return .unlimited }
            let (sum, overflow) = lhs.rawValue.addingReportingOverflow(rhs.rawValue)
            return overflow || sum > UInt(Int.max) ? .unlimited : Demand(rawValue: sum)
        }

        /// Adds two demands, and assigns the result to the first demand.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Demand) {
            if rhs.rawValue == 0 { return }
            lhs = lhs + rhs
        }

        /// Returns the result of adding an integer to a demand. A negative integer subtracts.
        @inlinable
        public static func + (lhs: Demand, rhs: Int) -> Demand {
            rhs >= 0 ? lhs + Demand(rawValue: UInt(rhs)) : lhs - Demand(rawValue: rhs.magnitude)
        }

        /// Adds an integer to a demand, and assigns the result to the demand.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Int) {
            lhs = lhs + rhs
        }

        /// Subtracts one demand from another.
        ///
        /// Subtracting anything from `.unlimited` gives `.unlimited`; subtracting `.unlimited` from
        /// a finite demand gives `.max(0)`; a result that would be negative is `.max(0)`.
        @inlinable
        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == unlimitedRaw { return .unlimited }
            if rhs.rawValue == unlimitedRaw { return .none }
            return lhs.rawValue > rhs.rawValue ? Demand(rawValue: lhs.rawValue &- rhs.rawValue) : .none
        }

        /// Subtracts one demand from another, and assigns the result to the first demand.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Demand) {
            lhs = lhs - rhs
        }

        /// Returns the result of subtracting an integer from a demand. A negative integer adds.
        /// Subtracting from `.unlimited` gives `.unlimited`; the result never goes below `.max(0)`.
        /// As Apple's, a negative integer whose addition would pass `Int.max` gives `.max(0)`.
        @inlinable
        public static func - (lhs: Demand, rhs: Int) -> Demand {
            rhs >= 0 ? lhs - Demand(rawValue: UInt(rhs)) : lhs.subtractingNegative(rhs.magnitude)
        }

        /// `self - (-magnitude)`: the sum, or `.max(0)` when it would pass `Int.max` (Apple's
        /// overflow result); `.unlimited` stays `.unlimited`.
        @usableFromInline
        func subtractingNegative(_ magnitude: UInt) -> Demand {
            if rawValue == Demand.unlimitedRaw { return .unlimited }
            let (sum, overflow) = rawValue.addingReportingOverflow(magnitude)
            return overflow || sum > UInt(Int.max) ? .none : Demand(rawValue: sum)
        }

        /// Subtracts an integer from a demand, and assigns the result to the demand.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Int) {
            lhs = lhs - rhs
        }

        /// Returns the result of multiplying a demand by an integer.
        ///
        /// `.unlimited` times anything is `.unlimited`; a negative factor gives `.max(0)`; a product
        /// too large for `Int` is `.unlimited`.
        @inlinable
        public static func * (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == unlimitedRaw { return .unlimited }
            if rhs <= 0 { return .none }
            let (product, overflow) = lhs.rawValue.multipliedReportingOverflow(by: UInt(rhs))
            return overflow || product > UInt(Int.max) ? .unlimited : Demand(rawValue: product)
        }

        /// Multiplies a demand by an integer, and assigns the result to the demand.
        @inlinable
        public static func *= (lhs: inout Demand, rhs: Int) {
            lhs = lhs * rhs
        }

        // MARK: Comparison (`.unlimited` is greater than every integer)

        /// Returns a Boolean value that indicates whether the demand equals the integer.
        @inlinable public static func == (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue == UInt(rhs) }
        /// Returns a Boolean value that indicates whether the demand differs from the integer.
        @inlinable public static func != (lhs: Demand, rhs: Int) -> Bool { !(lhs == rhs) }
        /// Returns a Boolean value that indicates whether the integer equals the demand.
        @inlinable public static func == (lhs: Int, rhs: Demand) -> Bool { rhs == lhs }
        /// Returns a Boolean value that indicates whether the integer differs from the demand.
        @inlinable public static func != (lhs: Int, rhs: Demand) -> Bool { !(rhs == lhs) }

        /// Returns a Boolean value indicating whether the first demand requests fewer elements than
        /// the second.
        @inlinable public static func < (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue < rhs.rawValue }
        /// Returns a Boolean value indicating whether the first demand requests fewer or the same
        /// number of elements as the second.
        @inlinable public static func <= (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue <= rhs.rawValue }
        /// Returns a Boolean value indicating whether the first demand requests more elements than
        /// the second.
        @inlinable public static func > (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue > rhs.rawValue }
        /// Returns a Boolean value indicating whether the first demand requests more or the same
        /// number of elements as the second.
        @inlinable public static func >= (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue >= rhs.rawValue }

        /// Returns a Boolean value that indicates whether the demand requests fewer elements than
        /// the given integer.
        @inlinable public static func < (lhs: Demand, rhs: Int) -> Bool { rhs > 0 && lhs.rawValue < UInt(rhs) }
        /// Returns a Boolean value that indicates whether the demand requests fewer or the same
        /// number of elements as the given integer.
        @inlinable public static func <= (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue <= UInt(rhs) }
        /// Returns a Boolean value that indicates whether the demand requests more elements than
        /// the given integer.
        @inlinable public static func > (lhs: Demand, rhs: Int) -> Bool { !(lhs <= rhs) }
        /// Returns a Boolean value that indicates whether the demand requests more or the same
        /// number of elements as the given integer.
        @inlinable public static func >= (lhs: Demand, rhs: Int) -> Bool { !(lhs < rhs) }
        /// Returns a Boolean value that indicates whether the integer is less than the demand.
        @inlinable public static func < (lhs: Int, rhs: Demand) -> Bool { rhs > lhs }
        /// Returns a Boolean value that indicates whether the integer is less than or equal to the
        /// demand.
        @inlinable public static func <= (lhs: Int, rhs: Demand) -> Bool { rhs >= lhs }
        /// Returns a Boolean value that indicates whether the integer is greater than the demand.
        @inlinable public static func > (lhs: Int, rhs: Demand) -> Bool { rhs < lhs }
        /// Returns a Boolean value that indicates whether the integer is greater than or equal to
        /// the demand.
        @inlinable public static func >= (lhs: Int, rhs: Demand) -> Bool { rhs <= lhs }

        // MARK: Codable

        /// Creates a demand instance from a decoder (a single unsigned integer; any count above
        /// `Int.max` is unlimited).
        public init(from decoder: any Decoder) throws {
            let raw = try decoder.singleValueContainer().decode(UInt.self)
            self.init(rawValue: raw > UInt(Int.max) ? Demand.unlimitedRaw : raw)
        }

        /// Encodes the demand to the provided encoder: a single unsigned integer, with `.unlimited`
        /// written as `Int.max + 1` as Apple's Combine writes it.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue == Demand.unlimitedRaw ? UInt(Int.max) + 1 : rawValue)
        }
    }
}

extension Subscribers.Demand {
    /// Stops the program when a subscription is asked for zero demand (contract rule 5).
    @inlinable
    @inline(__always)
    package func assertNonZero(_ file: StaticString = #fileID, _ line: UInt = #line) {
        precondition(rawValue != 0, "API violation: Subscription.request(_:) must not be called with .none (zero demand)",
                     file: file, line: line)
    }
}
