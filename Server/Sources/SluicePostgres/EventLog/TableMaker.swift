#if Server
import NIOConcurrencyHelpers
import Synchronization

/// Whether a log's tables were made in this process, and the migration under way: the first
/// caller starts it, the others of the moment wait for it; once it succeeded, a check is one
/// atomic load.
final class TableMaker: Sendable {
    private let done = Atomic<Bool>(false)
    private let running = NIOLockedValueBox<Task<Void, any Error>?>(nil)

    var isDone: Bool { done.load(ordering: .acquiring) }

    /// The tables are there (a migration succeeded).
    func made() {
        done.store(true, ordering: .releasing)
    }

    /// Runs `migrate` unless a migration is under way (then waits for it); a failed one is
    /// forgotten, for the next caller to try again.
    func make(_ migrate: @escaping @Sendable () async throws -> Void) async throws {
        let task = running.withLockedValue { running in
            if let running { return running }
            let task = Task { try await migrate() }
            running = task
            return task
        }
        do {
            try await task.value
            made()
        } catch {
            running.withLockedValue { if $0 == task { $0 = nil } }
            throw error
        }
    }
}
#endif
