import SluiceSanitizer
import Synchronization

/// The lock every stateful subscription uses: a mutex guarding the class's own stored properties.
///
/// The rule that goes with it (DESIGN.md): take the lock, change state, decide, release — and only
/// then call downstream, upstream or user closures. `withLock` makes the held region a closure so
/// that a call out cannot slip inside it unnoticed.
///
/// It is the standard library's `Mutex`. Thread Sanitizer cannot see how `Mutex` hands the lock
/// from one thread to the next (that happens inside the uninstrumented runtime), so under the
/// sanitizer each lock also tells it, through `SluiceSanitizer`, when it is taken and released:
/// a program that uses Sluice runs clean under `swift test --sanitize=thread` with no special flag.
/// Without the sanitizer the annotations are skipped on a test of one field that is always `nil`.
@usableFromInline
package struct Lock: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let mutex = Mutex<Void>(())

    /// Under Thread Sanitizer, a byte whose address stands for this lock in the sanitizer's
    /// annotations; `nil` otherwise.
    @usableFromInline
    let sanitizerToken: UnsafeMutableRawPointer?

    /// Whether the program runs under Thread Sanitizer (asked once).
    @usableFromInline
    static let underThreadSanitizer = sluice_tsan_active()

    @inlinable
    package init() {
        sanitizerToken = Lock.underThreadSanitizer ? .allocate(byteCount: 1, alignment: 1) : nil
    }

    @inlinable
    deinit {
        sanitizerToken?.deallocate()
    }

    /// Runs `body` with the lock held. `body` must not call out of the object.
    @inlinable
    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        try mutex.withLock { _ in
            if let sanitizerToken { sluice_tsan_acquire(sanitizerToken) }
            defer { if let sanitizerToken { sluice_tsan_release(sanitizerToken) } }
            return try body()
        }
    }
}
