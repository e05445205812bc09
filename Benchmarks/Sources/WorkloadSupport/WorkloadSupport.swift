import Dispatch
import Synchronization

/// A running total that sinks on several threads can add to.
///
/// Every implementation of a multi-threaded workload uses it, so it costs them all the same.
public final class AtomicTotal: Sendable {
    @usableFromInline
    let storage = Atomic<Int>(0)

    public init() {}

    /// Adds `value` (wrapping on overflow).
    @inlinable
    public func add(_ value: Int) {
        storage.wrappingAdd(value, ordering: .relaxed)
    }

    /// The total so far.
    public var value: Int { storage.load(ordering: .relaxed) }
}

/// Carries a value that is not `Sendable` (OpenCombine's subjects are not marked `Sendable`; their
/// `send` is thread-safe) into a closure that runs on other threads.
public struct UncheckedSendable<Value>: @unchecked Sendable {
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }
}

/// Runs `body(0)`, …, `body(threads - 1)` concurrently and returns when all are done.
public func onThreads(_ threads: Int, _ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: threads, execute: body)
}

/// `0..<n` as an `AsyncStream`, yielded by a task of its own while the caller iterates (the
/// `for await` baselines' source, and the sequence of `asyncSequencePublisher`).
public func streamOfRange(_ n: Int) -> AsyncStream<Int> {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    Task {
        for value in 0..<n {
            continuation.yield(value)
        }
        continuation.finish()
    }
    return stream
}
