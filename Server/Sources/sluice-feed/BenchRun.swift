import Foundation
import Synchronization

/// `POST /bench/start?count=C&rate=R[&size=S]`: the server itself emits `C` events at `R` per
/// second, at a fixed rate, each with data `"<seq> <CLOCK_MONOTONIC ns at emission>"`, `seq` from 0
/// (with `S`, a second line of filler makes the data `S` bytes long, as a real event's) — straight
/// into this instance's feed (never through PostgreSQL), so that a load generator on the same
/// machine measures each event's delivery latency from the moment it was emitted. With `--topics`,
/// event `seq` goes to the topic ``BenchTopics/topic(ofEvent:among:)`` draws.
///
/// The events come from a thread of their own that sleeps until each event's due time
/// (`start + seq / R`, with `clock_nanosleep` on an absolute deadline): a late wake-up is followed
/// by the events that fell due meanwhile, back to back, so the run emits exactly `C` events and
/// ends on time; nothing else runs on that thread. One run at a time.
final class BenchRun: Sendable {
    /// Publishes event `seq`'s text.
    private let publish: @Sendable (_ seq: Int, _ text: String) -> Void
    private let running = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)

    /// Runs whose events `publish` publishes.
    init(publish: @escaping @Sendable (_ seq: Int, _ text: String) -> Void) { self.publish = publish }

    /// Starts a run of `count` events at `rate` per second; `false` if a run is under way.
    func start(count: Int, rate: Double, size: Int = 0) -> Bool {
        guard !stopping.load(ordering: .relaxed),
              running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        let thread = Thread { [self] in
            emit(count: count, rate: rate, size: size)
            running.store(false, ordering: .releasing)
        }
        thread.name = "sluice-feed bench"
        thread.start()
        return true
    }

    /// Stops a run under way after its current event, and refuses new ones (at shutdown).
    func stop() { stopping.store(true, ordering: .relaxed) }

    private func emit(count: Int, rate: Double, size: Int) {
        let period = 1_000_000_000 / rate
        let filler = String(repeating: "x", count: size)
        let start = ProcessUsage.monotonicNanoseconds
        for seq in 0..<count {
            if stopping.load(ordering: .relaxed) { return }
            ProcessUsage.sleep(untilMonotonic: start + UInt64(Double(seq) * period))
            let stamp = "\(seq) \(ProcessUsage.monotonicNanoseconds)"
            let padding = size - stamp.utf8.count - 1     // the line break before the filler
            publish(seq, padding > 0 ? stamp + "\n" + filler.prefix(padding) : stamp)
        }
    }
}
