/// A value behind a ``Lock``: the shape of `Mutex<Value>` (`withLock { value in ... }`) as a class,
/// for state shared outside a subscription (caches, the testing kit's bookkeeping). Built on
/// ``Lock``, so that Thread Sanitizer sees every lock in the package.
package final class Protected<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the lock held and the value open for change. `body` must not call out.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }
}
