import Synchronization
import WorkloadSupport

/// The floor for two threads sending into one subject: each value delivered to the observer under
/// one shared `Mutex`.
func twoThreadSendLoop(_ n: Int) -> Int {
    let total = AtomicTotal()
    let observer = Mutex<@Sendable (Int) -> Void>({ total.add($0) })
    let half = n / 2
    onThreads(2) { thread in
        for value in thread * half..<(thread + 1) * half {
            observer.withLock { $0(value) }
        }
    }
    return total.value
}

/// Two tasks yield `n / 2` values each into one `AsyncStream`, which a third task consumes.
func twoThreadSendAsync(_ n: Int) async -> Int {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let consumer = Task { await sum(of: stream) }
    let half = n / 2
    await withTaskGroup(of: Void.self) { group in
        for thread in 0..<2 {
            group.addTask {
                for value in thread * half..<(thread + 1) * half {
                    continuation.yield(value)
                }
            }
        }
    }
    continuation.finish()
    return await consumer.value
}
