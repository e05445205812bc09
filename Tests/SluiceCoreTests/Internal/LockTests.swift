@testable import SluiceCore
import Dispatch
import Testing

private struct Boom: Error {}

/// A counter guarded by `Lock`, incremented without atomics.
private final class Counter: @unchecked Sendable {
    let lock = Lock()
    var value = 0
    var inside = 0
    var overlaps = 0
    func increment() {
        lock.withLock {
            inside += 1
            if inside > 1 { overlaps += 1 }
            value += 1
            inside -= 1
        }
    }
}

@Suite("Lock")
struct LockTests {
    @Test func returnsTheBodysResult() {
        let lock = Lock()
        #expect(lock.withLock { 42 } == 42)
    }

    @Test func rethrowsAndStaysUsable() {
        let lock = Lock()
        #expect(throws: Boom.self) {
            try lock.withLock { throw Boom() }
        }
        #expect(lock.withLock { "again" } == "again")
    }

    @Test func mutualExclusion() {
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<5_000 { counter.increment() }
        }
        #expect(counter.value == 40_000)
        #expect(counter.overlaps == 0)
    }
}
