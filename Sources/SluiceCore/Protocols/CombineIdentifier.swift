import Synchronization

/// The source of unique identifiers for ``CombineIdentifier/init()``.
@usableFromInline
let combineIdentifierCounter = Atomic<UInt64>(0)

/// A unique identifier for identifying publisher streams.
///
/// Create one with ``init()`` for a value-type subscriber, or ``init(_:)`` to identify an object.
@frozen
public struct CombineIdentifier: Hashable, CustomStringConvertible {
    @usableFromInline
    let rawValue: UInt64

    /// Creates a unique identifier. Thread-safe; every call returns a new identifier.
    @inlinable
    public init() {
        rawValue = combineIdentifierCounter.add(1, ordering: .relaxed).newValue
    }

    /// Creates an identifier derived from the identity of the given object.
    @inlinable
    public init(_ obj: AnyObject) {
        rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj)))
    }

    /// The identifier as a hexadecimal number, e.g. `0x2a`.
    public var description: String {
        "0x" + String(rawValue, radix: 16)
    }
}

// Not `Sendable` in Apple's Combine. Frozen, so Swift would infer `Sendable` from its stored
// properties: under the `AppleConcurrencyShape` trait, that inference is switched off.
#if AppleConcurrencyShape
@available(*, unavailable)
extension CombineIdentifier: Sendable {}
#else
extension CombineIdentifier: Sendable {}
#endif
