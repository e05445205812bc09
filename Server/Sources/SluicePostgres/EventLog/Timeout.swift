#if Server
import NIOConcurrencyHelpers

/// `body`'s result, or a ``PostgresEventLogError`` once `timeout` has passed without one; `body` is
/// then cancelled, `onTimeout` runs, and `body` is left to end by itself (a query that never
/// completes must not hold its caller, as a task group would). The timer ends with the call; a
/// cancelled caller gets `CancellationError` at once, and `body` is cancelled.
package func withTimeout<T: Sendable>(_ timeout: Duration, onTimeout: (@Sendable () async -> Void)? = nil,
                                      _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let call = NIOLockedValueBox(TimedCall<T>())
    /// Ends the call with `result` unless it has ended; returns the tasks to cancel, or `nil`.
    let finish: @Sendable (Result<T, any Error>) -> (work: Task<Void, Never>?, timer: Task<Void, Never>?)? = { result in
        let ended = call.withLockedValue { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Task<Void, Never>?)? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.continuation = nil; state.work = nil; state.timer = nil }
            return (state.continuation, state.work, state.timer)
        }
        guard let (waiting, work, timer) = ended else { return nil }
        waiting?.resume(with: result)
        return (work, timer)
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let cancelled = call.withLockedValue { state -> Bool in
                state.continuation = continuation
                return state.done
            }
            if cancelled { return continuation.resume(throwing: CancellationError()) }
            let work = Task {
                let result = await Result(catching: body)
                finish(result)?.timer?.cancel()
            }
            let timer = Task {
                do { try await Task.sleep(for: timeout) } catch { return }   // cancelled: the call ended
                guard let tasks = finish(.failure(PostgresEventLogError(message: "no answer within \(timeout)"))) else { return }
                tasks.work?.cancel()
                await onTimeout?()
            }
            let ended = call.withLockedValue { state -> Bool in
                guard !state.done else { return true }
                (state.work, state.timer) = (work, timer)
                return false
            }
            if ended {   // the body already answered, or the caller was cancelled: neither task is needed
                timer.cancel()
                work.cancel()
            }
        }
    } onCancel: {
        if let tasks = finish(.failure(CancellationError())) {
            tasks.work?.cancel()
            tasks.timer?.cancel()
        }
    }
}

/// Where a ``withTimeout(_:onTimeout:_:)`` call stands.
private struct TimedCall<T: Sendable> {
    var done = false
    var continuation: CheckedContinuation<T, any Error>?
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
}

extension Result where Failure == any Error {
    /// The result of `body`.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
#endif
