import SluiceCore

extension PublisherContract {
    /// A demand pattern the kit runs a fresh publisher under: how much the probe subscriber
    /// requests, when, from where, and when it cancels.
    ///
    /// Every scenario subscribes a fresh publisher from the factory, calls the fixture's `drive`
    /// once subscribed, waits until the publisher completes or goes quiet, and ends by cancelling
    /// if it has not completed — so publishers that never complete are fine. The probe also
    /// cancels from inside `receive(_:)` once it has received `valueLimit` values.
    ///
    /// ``all`` runs every one; pass a subset as `scenarios:` to focus on some.
    public struct Scenario: Hashable, Sendable, CustomStringConvertible {
        /// The scenario's name, as reports show it: `"oneAtATime"`.
        public let name: String
        /// What the scenario does, in a sentence.
        public let summary: String
        let kind: Kind

        enum Kind: Hashable, Sendable {
            case unlimited, oneAtATime, bursts, demandFromReceive, returnedDemandOnce, requestInsideReceive
            case order, cancelInsideReceive, cancelMidStream, cancelEarly, lateDemand, concurrent
            case cancelFromAnotherThread
            /// Not a public scenario: the order scenario's reference runs (the same total demand,
            /// requested up front).
            case upFront(Int)
        }

        private init(_ kind: Kind, _ name: String, _ summary: String) {
            self.kind = kind
            self.name = name
            self.summary = summary
        }

        /// `.unlimited` requested inside `receive(subscription:)`, as `sink` does.
        public static let unlimited = Scenario(
            .unlimited, "unlimited", ".unlimited requested inside receive(subscription:), as sink does")

        /// `.max(1)` requested inside `receive(subscription:)`, then `.max(1)` more from outside
        /// `receive` each time the previous one has been delivered.
        public static let oneAtATime = Scenario(
            .oneAtATime, "oneAtATime", ".max(1) at a time, each further one requested from outside receive")

        /// Demand in bursts from outside `receive` — `.max(3)`, `.max(1)`, two `.max(2)` back to
        /// back, `.max(5)`, and again — each once the previous burst has been delivered.
        public static let bursts = Scenario(
            .bursts, "bursts", "bursts of .max(3), .max(1), .max(2)+.max(2) back to back, .max(5)... from outside receive")

        /// `.max(1)` initially, and `.max(1)` more returned from every `receive(_:)`.
        public static let demandFromReceive = Scenario(
            .demandFromReceive, "demandFromReceive", ".max(1) initially, then .max(1) returned from every receive(_:)")

        /// `.max(1)` initially; the first `receive(_:)` returns `.max(2)`, every later one `.none`.
        /// At most three values may arrive: catches a publisher that turns returned demand into
        /// `.unlimited` (which ``demandFromReceive``, returning `.max(1)` every time, cannot tell
        /// from honest accounting).
        public static let returnedDemandOnce = Scenario(
            .returnedDemandOnce, "returnedDemandOnce",
            ".max(1) initially; the first receive(_:) returns .max(2), later ones .none: at most 3 values")

        /// `.max(2)` initially; every `receive(_:)` calls `request(.max(1))` re-entrantly. Then a
        /// fresh publisher is given the same total demand up front (`.max(n)` for the `n` values
        /// received): the values both runs delivered must come in the same order (the order check,
        /// under rule 7). Not compared: a publisher that delivers on threads of its own (its values
        /// may race), and one whose values differ from run to run (two reference runs, or two
        /// re-entrant ones, disagree).
        ///
        /// Only the order of the values both runs delivered is compared, not which values arrived:
        /// what some publishers deliver legitimately depends on how demand is split — a subject or
        /// `share` drops what arrives without demand, `combineLatest` over synchronous sources lets
        /// one source run ahead when given much demand at once.
        public static let order = Scenario(
            .order, "order",
            ".max(2) initially, .max(1) requested re-entrantly in every receive(_:); values must keep the order"
                + " they have under the same demand made up front")

        /// `.max(1)` initially; every `receive(_:)` calls `request(.max(1))` on the subscription
        /// (re-entrantly) and returns `.none`.
        public static let requestInsideReceive = Scenario(
            .requestInsideReceive, "requestInsideReceive",
            ".max(1) initially; every receive(_:) calls request(.max(1)) re-entrantly and returns .none")

        /// `.unlimited`; the first `receive(_:)` calls `cancel()`, `cancel()` again and then
        /// `request(.max(1))` on the subscription, re-entrantly. Nothing may follow.
        public static let cancelInsideReceive = Scenario(
            .cancelInsideReceive, "cancelInsideReceive",
            ".unlimited; the first receive(_:) calls cancel(), cancel() again, then request(.max(1)) re-entrantly")

        /// `.max(2)`; once both values arrived, `cancel()` twice and `request(.max(3))` from
        /// outside `receive`. Nothing may follow.
        public static let cancelMidStream = Scenario(
            .cancelMidStream, "cancelMidStream",
            ".max(2); after 2 values, cancel() twice and request(.max(3)) from outside receive")

        /// Nothing requested; `cancel()` and then `request(.max(1))` right after subscribing, then
        /// `drive`. Nothing may follow the cancel.
        public static let cancelEarly = Scenario(
            .cancelEarly, "cancelEarly", "no demand; cancel() then request(.max(1)) right after subscribing, then drive")

        /// Nothing requested while `drive` runs and the publisher settles; then `.unlimited`.
        /// No value may arrive before the request.
        public static let lateDemand = Scenario(
            .lateDemand, "lateDemand", "no demand while driven and settling, then .unlimited from outside receive")

        /// Four threads request `.max(1)` 25 times each while `drive` runs on another; then four
        /// threads cancel while a fifth requests. Checks demand accounting, serial delivery and
        /// cancel under concurrency. A publisher that is not thread-safe may crash here.
        public static let concurrent = Scenario(
            .concurrent, "concurrent",
            "4 threads × 25 request(.max(1)) while drive runs; then 4 threads cancel() while a 5th requests")

        /// `.unlimited` requested inside `receive(subscription:)`; another thread cancels while the
        /// publisher is in its emission loop, trial after trial, each with a fresh publisher.
        /// Nothing may arrive after the cancel but the one event that may have been on its way:
        /// catches an emission loop that loses a concurrent cancel (a plain `cancelled` flag read,
        /// then stored back over a cancel made meanwhile).
        ///
        /// The first trial cancels a random 20–400 µs after the subscription arrived. For a
        /// publisher that delivered on the kit's threads, the next ones are aimed: the probe, inside
        /// `receive(_:)` of one of the first values, meets the canceller (both spinning), and the
        /// cancel lands at an offset from the moment that `receive` returns — the offset learnt
        /// from trial to trial to sit on the boundary between "seen in time" and "one more value
        /// on its way", where a lost cancel happens. Aimed trials go on until 128 of them ran with
        /// both threads at once, or for 500 ms at most (150 ms when other verifications wait for
        /// their turn: one verification at a time in a process runs them). A publisher that delivers on threads of its own gets 2 trials at a random delay,
        /// one that delivered no value 1. Trials stop at the first violation.
        public static let cancelFromAnotherThread = Scenario(
            .cancelFromAnotherThread, "cancelFromAnotherThread",
            ".unlimited; another thread cancels mid-emission, aimed just after a value returns, trial after trial")

        /// Every scenario: the ``singleThreaded`` ones, then ``concurrent`` and
        /// ``cancelFromAnotherThread``.
        public static let all: [Scenario] = singleThreaded + [.concurrent, .cancelFromAnotherThread]

        /// Every scenario that calls in from one thread at a time: ``unlimited``, ``oneAtATime``,
        /// ``bursts``, ``demandFromReceive``, ``returnedDemandOnce``, ``requestInsideReceive``,
        /// ``order``, ``cancelInsideReceive``, ``cancelMidStream``, ``cancelEarly`` and
        /// ``lateDemand`` — for publishers meant to be used from one thread only (rule 8 is then
        /// not checked).
        public static let singleThreaded: [Scenario] = [
            .unlimited, .oneAtATime, .bursts, .demandFromReceive, .returnedDemandOnce, .requestInsideReceive, .order,
            .cancelInsideReceive, .cancelMidStream, .cancelEarly, .lateDemand,
        ]

        /// The scenario's name.
        public var description: String { name }
    }
}
