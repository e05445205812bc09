import Synchronization

/// The lock every stateful subscription uses: a `Mutex` guarding the class's own stored properties.
///
/// The rule that goes with it (DESIGN.md): take the lock, change state, decide, release — and only
/// then call downstream, upstream or user closures. `withLock` makes the held region a closure so
/// that a call out cannot slip inside it unnoticed.
@usableFromInline
package struct Lock: ~Copyable, Sendable {
    @usableFromInline
    let mutex = Mutex<Void>(())

    @inlinable
    package init() {}

    /// Runs `body` with the lock held. `body` must not call out of the object.
    @inlinable
    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        try mutex.withLock { _ in try body() }
    }
}
