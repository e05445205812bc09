#if Server
import NIOConcurrencyHelpers
import PostgresNIO

extension PostgresEventLog {
    /// Runs `body` in a transaction on a connection of the log's client and commits it; `body`
    /// appends with ``append(_:to:idempotencyKey:on:)`` on that connection, so that its events exist
    /// if and only if the transaction commits. A thrown error rolls the transaction back.
    ///
    /// Unlike `PostgresClient.withTransaction`, a failure says what happened to the transaction, as a
    /// ``PostgresEventLogError`` an HTTP route of Hummingbird or Vapor answers by itself (503 with
    /// `Retry-After`):
    /// - no connection, or no `BEGIN`, within ``timeout`` (the database unreachable, down, or
    ///   refusing), or the connection lost before `COMMIT` was sent: ``PostgresEventLogError/Kind/unavailable``
    ///   — nothing was committed;
    /// - `COMMIT` sent and unanswered within ``timeout``, or its connection lost:
    ///   ``PostgresEventLogError/Kind/outcomeUnknown`` — it may have been committed;
    /// - PostgreSQL refusing the `COMMIT` (a deferred constraint, a serialization failure):
    ///   ``PostgresEventLogError/Kind/unavailable`` — nothing was committed.
    ///
    /// Any other error `body` throws (PostgreSQL refusing one of its statements, the app's own) is
    /// rethrown as it is, after the rollback. The whole transaction has ``timeout`` to end: past it
    /// the connection is closed, which rolls back whatever was not committed — a transaction that
    /// appends holds its topic's row lock until it ends, and every other append to the topic waits.
    @discardableResult
    public func withTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = logger
        let stage = NIOLockedValueBox(TransactionStage.starting)
        do {
            return try await onConnection(timeout: timeout) { connection in
                // A connection closed before use fails here, before anything was done: the call is
                // run again on another (see onConnection). Nothing after BEGIN may be run again, so
                // every later error leaves wrapped.
                try await connection.query("BEGIN", logger: logger)
                do {
                    guard stage.withLockedValue({ $0.advance(to: .running) }) else { throw Abandoned() }
                    let result: T
                    do {
                        result = try await body(connection)
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw InTransaction(error: error)
                    }
                    // Not sent once the caller has been told that nothing was committed (timed out).
                    guard stage.withLockedValue({ $0.advance(to: .committing) }) else { throw Abandoned() }
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch let error as InTransaction {
                    throw error
                } catch {
                    throw AfterBegin(error: error)
                }
            }
        } catch let failure as InTransaction {
            if failure.error is PostgresEventLogError { throw failure.error }
            if let error = failure.error as? PSQLError, error.code != .server {
                throw PostgresEventLogError(.unavailable, "the connection to PostgreSQL failed before COMMIT, so nothing was committed: \(String(reflecting: error))")
            }
            throw failure.error
        } catch {
            let cause = (error as? AfterBegin)?.error ?? error
            let reached = stage.withLockedValue { stage -> TransactionStage in
                defer { stage = .abandoned }
                return stage
            }
            guard reached == .committing else {
                let reason = PostgresEventLogError.classify(cause, broken: .unavailable, sent: false).message
                throw PostgresEventLogError(.unavailable, "nothing was committed: \(reason)")
            }
            // PostgreSQL's refusal of the COMMIT says that nothing was committed; a lost connection
            // or no answer in time leaves it unknown.
            throw PostgresEventLogError.classify(cause, broken: .outcomeUnknown)
        }
    }
}

/// How far a ``PostgresEventLog/withTransaction(_:)`` call got: once the caller has been answered
/// (`abandoned`), its transaction may not go on to `COMMIT`.
private enum TransactionStage: Sendable, Equatable {
    case starting, running, committing, abandoned

    /// Moves to `next` unless the call was abandoned; whether it did.
    mutating func advance(to next: TransactionStage) -> Bool {
        guard self != .abandoned else { return false }
        self = next
        return true
    }
}

/// An error `body` threw, carried out of the connection's call as it is.
private struct InTransaction: Error {
    let error: any Error
}

/// An error after `BEGIN` (which the connection's call must not take for a connection closed
/// before use, and run the transaction again).
private struct AfterBegin: Error {
    let error: any Error
}

/// The call was answered (it timed out) before its transaction could go on.
private struct Abandoned: Error, CustomStringConvertible {
    var description: String { "the transaction was abandoned: it ran past its time limit" }
}
#endif
