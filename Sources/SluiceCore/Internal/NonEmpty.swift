/// A value stored with one byte beside it, so that it always occupies memory of its own.
///
/// A class field of an empty type (a stateless ``ElementStep`` or reducer, an empty coder) has no
/// storage: Thread Sanitizer then reports the `mutating` calls on it, made without the lock by the
/// upstream's serialised `receive`, as racing with unrelated reads of the object under the lock
/// (it attributes both to the same address). Wrapping the field gives it an address of its own.
@usableFromInline
struct NonEmpty<Value> {
    @usableFromInline var value: Value
    @usableFromInline let padding: UInt8 = 0

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
