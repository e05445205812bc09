import SluiceCore

/// A thread-safe counter.
final class PullCounter: Sendable {
    private let count = Protected(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// A thread-safe flag.
final class Flag: Sendable {
    private let flag = Protected(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}

/// Polls `condition` until it holds or `timeout` seconds pass. Generous: under Thread Sanitizer,
/// with the whole suite running beside it on two cores, a task that needs a thread of the
/// cooperative pool has waited over 10 seconds for one.
func waitUntil(timeout: Double = 60, _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition(), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(2))
    }
}
