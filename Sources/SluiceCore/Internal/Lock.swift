#if SLUICE_PTHREAD_LOCK
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#else
import Synchronization
#endif

/// The lock every stateful subscription uses: a mutex guarding the class's own stored properties.
///
/// The rule that goes with it (DESIGN.md): take the lock, change state, decide, release — and only
/// then call downstream, upstream or user closures. `withLock` makes the held region a closure so
/// that a call out cannot slip inside it unnoticed.
///
/// It is the standard library's `Mutex`, unless the package is built with
/// `-Xswiftc -DSLUICE_PTHREAD_LOCK`: then a `pthread_mutex_t`. Thread Sanitizer reports false
/// races on `Mutex` (it does not see the futex hand-over as synchronisation) but understands
/// pthread mutexes, so the sanitizer runs use that build:
/// `swift test --sanitize=thread -Xswiftc -DSLUICE_PTHREAD_LOCK`.
@usableFromInline
package struct Lock: ~Copyable, @unchecked Sendable {
    #if SLUICE_PTHREAD_LOCK
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @inlinable
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    @inlinable
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held. `body` must not call out of the object.
    @inlinable
    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
    #else
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
    #endif
}
