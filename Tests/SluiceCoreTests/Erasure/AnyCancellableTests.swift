import Dispatch
import SluiceCore
import Synchronization
import Testing

private final class CountingCancellable: Cancellable, @unchecked Sendable {
    let count = Atomic<Int>(0)
    func cancel() { count.add(1, ordering: .relaxed) }
    var cancels: Int { count.load(ordering: .relaxed) }
}

@Suite("AnyCancellable")
struct AnyCancellableTests {
    @Test func runsTheClosureOnceOnCancel() {
        var runs = 0
        let cancellable = AnyCancellable { runs += 1 }
        #expect(runs == 0)
        cancellable.cancel()
        cancellable.cancel()
        #expect(runs == 1)
    }

    @Test func cancelsOnDeinit() {
        var runs = 0
        do {
            let cancellable = AnyCancellable { runs += 1 }
            _ = cancellable
        }
        #expect(runs == 1)
    }

    @Test func doesNotCancelAgainOnDeinitAfterCancel() {
        var runs = 0
        do {
            let cancellable = AnyCancellable { runs += 1 }
            cancellable.cancel()
        }
        #expect(runs == 1)
    }

    @Test func wrapsACancellable() {
        let inner = CountingCancellable()
        do {
            let cancellable = AnyCancellable(inner)
            cancellable.cancel()
            cancellable.cancel()
        }
        #expect(inner.cancels == 1)
        do { _ = AnyCancellable(inner) }
        #expect(inner.cancels == 2)
    }

    @Test func releasesTheClosureOnCancel() {
        weak var weakToken: Token?
        let cancellable: AnyCancellable
        do {
            let token = Token()
            weakToken = token
            cancellable = AnyCancellable { token.value += 1 }
        }
        #expect(weakToken != nil)
        cancellable.cancel()
        #expect(weakToken == nil)
    }

    @Test func cancelIsThreadSafeAndRunsOnce() {
        for _ in 0..<50 {
            let inner = CountingCancellable()
            let cancellable = AnyCancellable(inner)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in cancellable.cancel() }
            #expect(inner.cancels == 1)
        }
    }

    @Test func reentrantCancelFromItsOwnClosure() {
        var runs = 0
        var cancellable: AnyCancellable?
        cancellable = AnyCancellable {
            runs += 1
            cancellable?.cancel()
        }
        cancellable?.cancel()
        #expect(runs == 1)
        cancellable = nil
        #expect(runs == 1)
    }

    @Test func hashableByIdentity() {
        let a = AnyCancellable {}
        let b = AnyCancellable {}
        #expect(a == a)
        #expect(a != b)
        #expect(Set([a, a, b]).count == 2)
    }

    @Test func storeInASetKeepsItAliveUntilTheSetIsReleased() {
        var runs = 0
        var set = Set<AnyCancellable>()
        AnyCancellable { runs += 1 }.store(in: &set)
        AnyCancellable { runs += 1 }.store(in: &set)
        #expect(set.count == 2)
        #expect(runs == 0)
        set.removeAll()
        #expect(runs == 2)
    }

    @Test func storeInACollection() {
        var runs = 0
        var array: [AnyCancellable] = []
        let cancellable = AnyCancellable { runs += 1 }
        cancellable.store(in: &array)
        cancellable.store(in: &array)
        #expect(array.count == 2)
        #expect(array[0] === cancellable)
        array = []
        #expect(runs == 0)  // `cancellable` still holds it
        withExtendedLifetime(cancellable) {}
    }

    @Test func sinkStoredInASetCancelsWhenTheSetGoes() {
        let publisher = ManualPublisher<Int, Never>()
        var set: Set<AnyCancellable>? = []
        publisher.sink { _ in }.store(in: &set!)
        #expect(publisher.subscription.cancelCount == 0)
        set = nil
        #expect(publisher.subscription.cancelCount == 1)
    }
}
