import Synchronization

/// The meeting point of one aimed trial of the `cancelFromAnotherThread` scenario, between the
/// probe — inside `receive(_:)` of value `atValue`, on the delivering thread — and the canceller
/// thread:
///
/// 1. the canceller says it is waiting, and spins;
/// 2. the probe, once the canceller is waiting, opens the gate and spins until the canceller takes
///    it;
/// 3. the probe says it has seen the gate taken, spins `-offset` if `offset` is negative, and
///    returns from `receive`;
/// 4. the canceller, having seen that, spins `offset` if it is positive, and cancels.
///
/// So the cancel lands about `offset` after the publisher got value `atValue`'s `receive` back:
/// while the publisher is between that value and the next, where an emission loop that loses a
/// concurrent cancel does it. ``ContractCancelAim`` finds the offset that puts it there. The round
/// trip (2–4) tells whether both threads were running at once: on a loaded machine one of them is
/// often waiting for a core, and a trial whose round trip took longer than ``coScheduledLimit`` did
/// not aim at anything (it still cancels, but teaches the aim nothing).
///
/// Every wait has a deadline, and the gate opens without the value when the publisher completes
/// or when the kit's call that made it deliver has returned without reaching it.
final class ContractCancelRace: Sendable {
    /// The value (counted from 1) inside whose `receive(_:)` the probe opens the gate.
    let atValue: Int
    /// How long after the probe leaves `receive` the canceller cancels; negative: how long
    /// before (the probe lingers).
    let offset: Duration

    /// The longest round trip of a trial whose two threads ran at once.
    static let coScheduledLimit = Duration.microseconds(10)

    private let waiting = Atomic<Bool>(false)
    private let open = Atomic<Bool>(false)
    private let taken = Atomic<Bool>(false)
    private let seen = Atomic<Bool>(false)
    /// Whether the probe opened the gate (from inside the value's `receive`).
    private let reached = Atomic<Bool>(false)
    /// The round trip in nanoseconds, once measured (`-1` before, or when the gate never opened).
    private let roundTrip = Atomic<Int>(-1)

    init(atValue: Int, offset: Duration) {
        self.atValue = atValue
        self.offset = offset
    }

    /// Whether the probe reached the value and opened the gate.
    var reachedValue: Bool { reached.load(ordering: .acquiring) }

    /// Whether the trial aimed: the probe opened the gate, and saw it taken, with both threads
    /// running.
    var aimed: Bool {
        guard reachedValue else { return false }
        let nanoseconds = roundTrip.load(ordering: .acquiring)
        return nanoseconds >= 0 && .nanoseconds(nanoseconds) <= Self.coScheduledLimit
    }

    /// An aimed trial at a random value among the first four (among the first `values`, if fewer
    /// came in an earlier trial), with the offset `aim` suggests.
    static func aimed(by aim: inout ContractCancelAim, values: Int) -> ContractCancelRace {
        ContractCancelRace(atValue: .random(in: 1...min(4, max(1, values))), offset: .nanoseconds(aim.nextOffset()))
    }

    /// The canceller's side: says it is waiting, spins until the gate opens or `deadline` passes,
    /// takes the gate, spins until the probe has seen it taken, then spins `offset` (if positive). Spins flat out
    /// for the first millisecond of each wait, then yields between looks.
    func waitForGate(until deadline: ContinuousClock.Instant) {
        waiting.store(true, ordering: .releasing)
        guard Self.spin(until: open, yieldingAfter: .milliseconds(1), deadline: deadline) else {
            taken.store(true, ordering: .releasing)
            return
        }
        let takenAt = ContinuousClock.now
        taken.store(true, ordering: .releasing)
        guard Self.spin(until: seen, yieldingAfter: .milliseconds(1), deadline: takenAt + .milliseconds(20)) else { return }
        let seenAt = ContinuousClock.now
        roundTrip.store(Int((seenAt - takenAt).components.attoseconds / 1_000_000_000), ordering: .releasing)
        let until = seenAt + offset
        while ContinuousClock.now < until {}
    }

    /// The probe's side, inside `receive(_:)` of value `atValue`: waits (up to 20 ms) for the
    /// canceller to be waiting, opens the gate, waits (up to 20 ms) for it to be taken, says so,
    /// and spins `-offset` (if `offset` is negative).
    func openGateAndWait() {
        _ = Self.spin(until: waiting, yieldingAfter: .microseconds(10), deadline: .now + .milliseconds(20))
        reached.store(true, ordering: .releasing)
        open.store(true, ordering: .releasing)
        _ = Self.spin(until: taken, yieldingAfter: .microseconds(500), deadline: .now + .milliseconds(20))
        seen.store(true, ordering: .releasing)
        let until = ContinuousClock.now - offset
        while ContinuousClock.now < until {}
    }

    /// Opens the gate, and lets the canceller cancel at once, without waiting for the probe (the
    /// stream ended, or will not reach `atValue`).
    func openGate() {
        seen.store(true, ordering: .releasing)
        open.store(true, ordering: .releasing)
    }

    /// Spins until `flag` is set (`true`) or `deadline` passes (`false`); yields between looks
    /// after `patience`.
    private static func spin(
        until flag: borrowing Atomic<Bool>, yieldingAfter patience: Duration, deadline: ContinuousClock.Instant
    ) -> Bool {
        let start = ContinuousClock.now
        var looks = 0
        while !flag.load(ordering: .acquiring) {
            looks += 1
            if looks & 63 == 0 {
                let now = ContinuousClock.now
                if now >= deadline { return false }
                if now - start > patience { contractYield() }
            }
        }
        return true
    }
}

/// Where the aimed trials of one `cancelFromAnotherThread` scenario put the cancel, learnt trial
/// by trial. A cancel that lands too early is seen before the publisher's next step; one that lands
/// too late finds the next value already on its way. Each trial tells which, and the offset
/// moves towards the boundary between the two: in growing steps while the trials keep
/// telling the same (the boundary is far, or has moved — a loaded machine moves it), in shrinking
/// ones, down to a few nanoseconds, once they alternate. That boundary is where a publisher that
/// loses a cancel between reading and storing its state does it, however narrow that gap.
struct ContractCancelAim: Sendable {
    private var offset = 0.0
    private var step = 200.0
    private var lastWasLate: Bool?

    /// The offset of the next trial in nanoseconds: the estimate, dithered by up to one step.
    mutating func nextOffset() -> Int {
        Int(offset + Double.random(in: -step...step))
    }

    /// Learns from a trial whose cancel found another value on its way (`late`: cancel sooner) or
    /// was seen before it (cancel later).
    mutating func learn(late: Bool) {
        step = lastWasLate == late ? min(1_000, step * 1.5) : max(4, step * 0.6)
        lastWasLate = late
        offset = min(20_000, max(-20_000, offset + (late ? -step : step)))
    }
}

/// The turns the verifications of a process take to run their aimed trials, one at a time, in the
/// order they asked.
actor ContractRaceTurns {
    static let shared = ContractRaceTurns()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits for the turn; returns whether other verifications are waiting for theirs then.
    func begin() async -> Bool {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        return !waiting.isEmpty
    }

    /// Hands the turn to the next in line.
    func end() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
