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
