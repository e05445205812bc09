import Foundation

/// State behind a lock: Foundation's `NSLock`, whose hand-over from thread to thread Thread
/// Sanitizer sees (it is a pthread mutex off Apple's systems), where it cannot see the standard
/// library's `Mutex`. The rule that goes with it (DESIGN.md): change state and decide inside
/// `withLock`, call out after it.
final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` on the state with the lock held. `body` must not call out.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
