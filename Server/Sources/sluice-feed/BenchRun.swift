import Foundation
import Synchronization

/// `POST /bench/start?count=C&rate=R`: the server itself emits `C` events at `R` per second, at a
/// fixed rate, each with data `"<seq> <CLOCK_MONOTONIC ns at emission>"`, `seq` from 0 — straight
/// into this instance's feed (never through PostgreSQL), so that a load generator on the same
/// machine measures each event's delivery latency from the moment it was emitted.
///
/// The events come from a thread of their own that sleeps until each event's due time
/// (`start + seq / R`, with `clock_nanosleep` on an absolute deadline): a late wake-up is followed
/// by the events that fell due meanwhile, back to back, so the run emits exactly `C` events and
/// ends on time; nothing else runs on that thread. One run at a time.
final class BenchRun: Sendable {
    private let input: FeedInput
    private let running = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)

    init(input: FeedInput) { self.input = input }

    /// Starts a run of `count` events at `rate` per second; `false` if a run is under way.
    func start(count: Int, rate: Double) -> Bool {
        guard !stopping.load(ordering: .relaxed),
              running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        let thread = Thread { [self] in
            emit(count: count, rate: rate)
            running.store(false, ordering: .releasing)
        }
        thread.name = "sluice-feed bench"
        thread.start()
        return true
    }

    /// Stops a run under way after its current event, and refuses new ones (at shutdown).
    func stop() { stopping.store(true, ordering: .relaxed) }

    private func emit(count: Int, rate: Double) {
        let period = 1_000_000_000 / rate
        let start = ProcessUsage.monotonicNanoseconds
        for seq in 0..<count {
            if stopping.load(ordering: .relaxed) { return }
            ProcessUsage.sleep(untilMonotonic: start + UInt64(Double(seq) * period))
            input.publish("\(seq) \(ProcessUsage.monotonicNanoseconds)")
        }
    }
}
