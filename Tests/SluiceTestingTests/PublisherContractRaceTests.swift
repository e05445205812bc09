import SluiceCore
import SluiceTesting
import Testing

/// The kit's cross-thread scenarios against a publisher whose only flaw is a race: it keeps its
/// `cancelled` flag in a plain stored property and can lose a cancel made on another thread while
/// it delivers. Only two threads at once show the flaw, so only the cross-thread scenarios can
/// flag it — and they must, in every run, on a loaded machine.
@Suite struct PublisherContractRaceTests {
    @Test func thePlainFlagIsInvisibleFromOneThread() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) {
            PlainFlagPublisher(count: 200)
        }
        #expect(report.passed, "\(report)")
    }

    @Test func aCancelLostToThePlainFlagBreaksRule3() async {
        // One verification flags it on a 2-core machine with a build beside it; in a parallel run
        // of the whole suite, where dozens of tests keep both cores busy, the kit's two threads
        // seldom run at once: a second and third verification cover that.
        var report = await PublisherContract.check(scenarios: [.cancelFromAnotherThread]) {
            PlainFlagPublisher(count: 200)
        }
        for _ in 1...2 where report.passed {
            report = await PublisherContract.check(scenarios: [.cancelFromAnotherThread]) {
                PlainFlagPublisher(count: 200)
            }
        }
        #expect(report.brokenRules == [.termination], "\(report)")
        #expect(report.violations.first?.message.contains("arrived after cancel() had returned (on another thread)") == true,
                "\(report)")
    }
}

/// Publishes `count` pseudo-random numbers (a xorshift generator, stepped `rounds` times per value)
/// from an emission loop on the thread that requests, the way a first publisher is often written:
/// its state, the `cancelled` flag included, lives in plain stored properties — no lock, no atomic.
///
/// From one thread it keeps the contract: a cancel made inside `receive(_:)` is seen as soon as
/// `receive` returns. But after each value the loop reads its state once, steps the generator, and
/// stores the state back whole: a `cancel()` made on another thread during that step is
/// overwritten, and the loop goes on delivering.
private struct PlainFlagPublisher: Publisher {
    typealias Output = UInt64
    typealias Failure = Never

    let count: Int
    var rounds = 4

    func receive<S: Subscriber>(subscriber: S) where S.Input == UInt64, S.Failure == Never {
        subscriber.receive(subscription: PlainFlagSubscription(downstream: subscriber, count: count, rounds: rounds))
    }
}

private final class PlainFlagSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == UInt64, Downstream.Failure == Never {
    private struct State {
        var cancelled = false
        var emitting = false
        var demand = Subscribers.Demand.none
        var remaining: Int
        var value: UInt64 = 0x9E37_79B9_7F4A_7C15
    }

    /// Unsynchronised on purpose: the flaw under test.
    private var state: State
    /// Behind a lock, so that the race can lose a cancel but never corrupt a reference.
    private let downstream: Protected<Downstream?>
    private let rounds: Int

    init(downstream: Downstream, count: Int, rounds: Int) {
        state = State(remaining: count)
        self.downstream = Protected(downstream)
        self.rounds = rounds
    }

    func request(_ demand: Subscribers.Demand) {
        state.demand += demand
        guard !state.emitting, !state.cancelled, let downstream = downstream.withLock({ $0 }) else { return }
        state.emitting = true
        while !state.cancelled, state.demand > 0, state.remaining > 0 {
            state.demand -= 1
            state.remaining -= 1
            let more = downstream.receive(state.value)
            var step = state  // read once after receive: a cancel made inside it is seen here
            if step.cancelled { break }
            step.demand += more
            step.value = Self.draw(after: step.value, rounds: rounds)
            state = step  // stored whole: over a cancel made on another thread since the read
        }
        state.emitting = false
        if state.remaining == 0 && !state.cancelled {
            state.cancelled = true
            self.downstream.withLock { $0 = nil }
            downstream.receive(completion: .finished)
        }
    }

    func cancel() {
        state.cancelled = true
        downstream.withLock { $0 = nil }
    }

    private static func draw(after value: UInt64, rounds: Int) -> UInt64 {
        var value = value
        for _ in 0..<rounds {
            value ^= value << 13
            value ^= value >> 7
            value ^= value << 17
        }
        return value
    }
}
