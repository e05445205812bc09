/// An immutable value on the heap.
///
/// Subscriptions keep their generic, optional state (`S?`, `Output?`) boxed: a class's deinit runs
/// unspecialised, and destroying a field of type `Optional<S>` there makes the runtime look up the
/// metadata of `Optional<S>` (a hash-table search, about 500 instructions) for each such field on
/// every subscription torn down. An optional box is a nullable reference: releasing it needs no
/// metadata. Moving the box around (`Step` values, snapshots) also costs one retain instead of a
/// copy of a whole chain of subscriber structs.
@usableFromInline
final class Boxed<Value> {
    @usableFromInline
    let value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}

/// How a subscription keeps a subscriber it must be able to let go of, in one optional reference
/// (`AnyObject?`, which deinit releases without metadata, as ``Boxed``): the subscriber itself when
/// it is a class instance — nothing to allocate — and a ``Boxed`` otherwise.
///
/// For subscriptions that reach their subscriber a few times (a single value's): on a path taken for
/// every value, reading the subscriber back costs a retain more than reading a ``Boxed`` (measured on
/// subject sends: +9 %). The owner asks ``isObject`` once and keeps the answer, as the type test does
/// not always fold away.
@usableFromInline
enum HeldReference<Value> {
    /// Whether a `Value` is a single class reference, held as it is.
    @inlinable
    static var isObject: Bool {
        MemoryLayout<Value>.size == MemoryLayout<AnyObject>.size && Value.self is AnyObject.Type
    }

    /// The reference that holds `value`; `isObject` is ``isObject``.
    @inlinable
    static func hold(_ value: Value, isObject: Bool) -> AnyObject {
        isObject ? unsafeBitCast(value, to: AnyObject.self) : Boxed(value)
    }

    /// The value `object` (made by ``hold(_:isObject:)``) holds.
    @inlinable
    static func value(of object: AnyObject, isObject: Bool) -> Value {
        isObject ? unsafeBitCast(object, to: Value.self) : unsafeDowncast(object, to: Boxed<Value>.self).value
    }
}
