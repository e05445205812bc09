import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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

// MARK: Scaling workloads

/// Times the measured phase of a scaling workload, and marks it for callgrind.
///
/// A scaling workload builds its set-up (N subscribers, N inner subjects…) unmeasured, then runs
/// the work it measures inside ``measure(_:)``. `instructions`/`scaling` run callgrind with
/// `--toggle-collect='*scalingMeasuredPhase*'`, so only that call's instructions are counted;
/// `workload-runner --scaling` takes the time of the same call.
public final class ScalingPhase {
    /// Whether ``measure(_:)`` times its body and calls it through ``scalingMeasuredPhase(_:)``
    /// (a warm-up run is not measured).
    public let isActive: Bool
    /// The duration of the last measured phase.
    public private(set) var nanoseconds: Int64 = 0

    public init(isActive: Bool) {
        self.isActive = isActive
    }

    /// Runs `body`, the measured work of a scaling workload.
    public func measure(_ body: () -> Void) {
        guard isActive else {
            body()
            return
        }
        let clock = ContinuousClock()
        let start = clock.now
        scalingMeasuredPhase(body)
        let elapsed = clock.now - start
        nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }
}

/// The call whose instructions callgrind counts for a scaling workload (never inlined, so that
/// its symbol, which contains `scalingMeasuredPhase`, is a function of its own).
@inline(never)
public func scalingMeasuredPhase(_ body: () -> Void) {
    body()
}

/// A small deterministic random number generator (SplitMix64): the same "random" order for every
/// implementation and every run.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `0..<n` in a random order fixed by `seed`.
public func shuffledIndices(_ n: Int, seed: UInt64 = 19) -> [Int] {
    var generator = SplitMix64(seed: seed)
    return Array(0..<n).shuffled(using: &generator)
}

// MARK: Memory

/// The process's resident memory in bytes (Linux: `/proc/self/statm`; 0 elsewhere).
public func residentBytes() -> Int {
    #if os(Linux)
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    guard withUnsafeMutablePointer(to: &size, { sizePointer in
        withUnsafeMutablePointer(to: &resident) { residentPointer in
            withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
        }
    }) == 2 else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}

/// Measures the resident memory that a set of idle subscriptions holds: ``start()`` before
/// creating them, ``stop()`` once they exist (and are still held).
public final class MemoryProbe {
    private var before = 0
    /// Resident bytes added between ``start()`` and ``stop()``.
    public private(set) var bytes = 0

    public init() {}

    public func start() {
        before = residentBytes()
    }

    public func stop() {
        bytes = residentBytes() - before
    }
}
