#if Server
import NIOConcurrencyHelpers

/// `body`'s result, or a ``PostgresEventLogError`` once `timeout` has passed without one; `body` is
/// then cancelled, `onTimeout` runs, and `body` is left to end by itself (a query that never
/// completes must not hold its caller, as a task group would).
package func withTimeout<T: Sendable>(_ timeout: Duration, onTimeout: (@Sendable () async -> Void)? = nil,
                                      _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = NIOLockedValueBox<(done: Bool, continuation: CheckedContinuation<T, any Error>?)>((false, nil))
    let finish: @Sendable (Result<T, any Error>) -> Bool = { result in
        let continuation = outcome.withLockedValue { state -> CheckedContinuation<T, any Error>?? in
            guard !state.done else { return .none }
            state.done = true
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard case .some(let waiting) = continuation else { return false }
        waiting?.resume(with: result)
        return true
    }
    return try await withCheckedThrowingContinuation { continuation in
        outcome.withLockedValue { $0.continuation = continuation }
        let work = Task {
            do { _ = finish(.success(try await body())) } catch { _ = finish(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: timeout)
            guard finish(.failure(PostgresEventLogError(message: "no answer within \(timeout)"))) else { return }
            work.cancel()
            await onTimeout?()
        }
    }
}
#endif
