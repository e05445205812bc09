import Synchronization
import SluiceCore

/// The knobs of one verification.
struct ContractConfiguration: Sendable {
    var settle: Duration
    var timeout: Duration
    var valueLimit: Int
    /// Operator mode: the operator under test is subscribed to the kit's probe upstreams.
    var operatorMode = false
    /// Operator mode: how much the operator may keep requested from each probe upstream.
    var upstreamDemand: PublisherContract.UpstreamDemand = .unbounded
}

/// What one scenario shares between the runner (async side) and the scenario's threads.
///
/// The runner only reads `probe` while jobs may run, and writes `probe`/`fixture` only when no job
/// is running (each job's completion is published through a lock-backed signal), so the unchecked
/// conformance is sound. The fixture is touched only from jobs.
final class ContractScenarioContext<P: Publisher & SendableMetatype>: @unchecked Sendable {
    var probe: ContractProbe<P.Output, P.Failure>?
    var fixture: PublisherContract.Fixture<P>?
    /// Position in the bursts cycle; touched only from jobs.
    var burst = 0


    init(probe: ContractProbe<P.Output, P.Failure>) {
        self.probe = probe
    }
}

/// A weak reference, for the release check.
final class ContractWeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}

/// Lets a few threads start their work together (bounded: a thread that never arrives delays the
/// others by at most 50 ms).
final class ContractBarrier: Sendable {
    private let arrived = Atomic<Int>(0)
    private let count: Int

    init(count: Int) { self.count = count }

    func arriveAndWait() {
        arrived.add(1, ordering: .acquiringAndReleasing)
        let deadline = ContinuousClock.now + .milliseconds(50)
        while arrived.load(ordering: .acquiring) < count && ContinuousClock.now < deadline {
            contractYield()
        }
    }
}

/// Runs one scenario against a fresh fixture and returns its violations.
struct ContractScenarioRunner<P: Publisher & SendableMetatype> {
    typealias Probe = ContractProbe<P.Output, P.Failure>
    typealias Scenario = PublisherContract.Scenario
    typealias Violation = PublisherContract.Violation

    let scenario: Scenario
    let configuration: ContractConfiguration
    /// Makes a fresh fixture; in operator mode, its operator is subscribed to probe upstreams
    /// that report to the observer (the scenario's probe).
    let makeFixture: @Sendable (any ContractUpstreamObserver) -> PublisherContract.Fixture<P>

    /// How many aimed trials of ``PublisherContract/Scenario/cancelFromAnotherThread`` (each with a
    /// fresh publisher) must have run with both threads running at once, for a publisher that
    /// delivers synchronously; the most trials and time it may take to get them (a machine too
    /// loaded to run two threads at once ends there); and how many trials a publisher that
    /// delivers asynchronously gets.
    static var aimedRaceTrials: Int { 128 }
    static var raceTrialLimit: Int { 1_000 }
    static var raceTimeLimit: Duration { .milliseconds(500) }
    /// The time limit when other verifications wait for their turn (a parallel test run, whose
    /// other tests keep the cores busy anyway).
    static var contendedRaceTimeLimit: Duration { .milliseconds(150) }
    static var asynchronousRaceTrials: Int { 2 }

    /// A call that did not return.
    private struct Hang {
        let label: String
        let inFlight: [String]
        let parkedRunaway: Bool
        /// The ordinal of a repeated `cancel()` (2 or more) among the calls that did not return.
        let repeatedCancel: Int?
    }

    /// What one subscription of a fresh publisher showed.
    private struct Pass {
        let violations: [Violation]
        let values: [(text: String, index: Int)]
        let history: [String]
        let hung: Bool
        let asynchronous: Bool
    }

    func plan(for kind: Scenario.Kind, race: ContractCancelRace? = nil) -> ContractProbePlan {
        var plan = ContractProbePlan(valueLimit: configuration.valueLimit)
        plan.race = race
        plan.upstreamDemand = configuration.upstreamDemand
        // The one exception to rule 2: Apple's ObservableObjectPublisher ignores demand.
        plan.checksDemand = P.self != ObservableObjectPublisher.self
        switch kind {
        case .unlimited:
            plan.initialDemand = .unlimited
        case .oneAtATime:
            plan.initialDemand = .max(1)
        case .bursts:
            plan.initialDemand = .max(3)
        case .demandFromReceive:
            plan.initialDemand = .max(1)
            plan.returnedDemand = .max(1)
        case .returnedDemandOnce:
            plan.initialDemand = .max(1)
            plan.returnedDemand = .max(2)
            plan.returnsDemandOnce = true
        case .requestInsideReceive:
            plan.initialDemand = .max(1)
            plan.requestInsideReceive = .max(1)
        case .order:
            plan.initialDemand = .max(2)
            plan.requestInsideReceive = .max(1)
        case .upFront(let count):
            plan.initialDemand = .max(count)
        case .cancelFromAnotherThread:
            plan.initialDemand = .unlimited
        case .cancelInsideReceive:
            plan.initialDemand = .unlimited
            plan.cancelInsideReceiveAt = 1
        case .cancelMidStream:
            plan.initialDemand = .max(2)
        case .concurrent:
            plan.dwellsInReceive = true
        case .cancelEarly, .lateDemand:
            break
        }
        return plan
    }

    /// The bursts the pull loop requests, in turn, once the previous one is delivered.
    private static func bursts(for kind: Scenario.Kind) -> [[Subscribers.Demand]] {
        kind == .bursts ? [[.max(1)], [.max(2), .max(2)], [.max(5)], [.max(3)]] : [[.max(1)]]
    }

    func run() async -> [Violation] {
        switch scenario.kind {
        case .order:
            return await checkOrder()
        case .cancelFromAnotherThread:
            return await raceCancels()
        default:
            return await pass(scenario.kind).violations
        }
    }

    /// Subscribes a fresh publisher's probe, runs the steps of `kind`, and concludes.
    private func pass(_ kind: Scenario.Kind) async -> Pass {
        let context = ContractScenarioContext<P>(probe: Probe(plan: plan(for: kind)))
        let worker = ContractWorker()
        defer { worker.close() }
        let hang = await drive(context, kind, on: worker)
        // (No local reference to the probe may outlive this: the release check needs it gone.)
        let values = probe(context).receivedValues
        let history = probe(context).results.history
        let asynchronous = probe(context).snapshot.asynchronous
        let violations = await conclude(context, worker: worker, hang: hang)
        return Pass(violations: violations, values: values, history: history, hung: hang != nil,
                    asynchronous: asynchronous)
    }

    /// The `order` scenario: the values under re-entrant demand must come in the order a fresh
    /// publisher delivers them for the same demand made up front — compared on the values both
    /// delivered, only when every run delivered on the kit's threads (synchronously), two up-front
    /// runs agree, and so do two re-entrant ones.
    private func checkOrder() async -> [Violation] {
        let main = await pass(.order)
        // Values delivered from threads of the publisher's own may race each other: not compared.
        guard main.violations.isEmpty, !main.values.isEmpty, !main.asynchronous else { return main.violations }
        let count = main.values.count
        let reference = await pass(.upFront(count))
        guard reference.violations.isEmpty, !reference.asynchronous else { return [] }
        let again = await pass(.upFront(count))
        let expected = reference.values.map(\.text)
        // Values that differ from run to run (times, random numbers): not compared.
        guard again.violations.isEmpty, !again.asynchronous, again.values.map(\.text) == expected else { return [] }
        let got = main.values.map(\.text)
        let (gotShared, expectedShared) = (Self.shared(got, with: expected), Self.shared(expected, with: got))
        guard let mismatch = zip(gotShared, expectedShared).first(where: { got[$0] != expected[$1] }) else { return [] }
        // Sources that race behind a serialising operator (two threads sending to a merge) can fool
        // the checks above: reported only if the re-entrant run gives the same values again.
        let mainAgain = await pass(.order)
        guard mainAgain.violations.isEmpty, !mainAgain.asynchronous, mainAgain.values.map(\.text) == got else { return [] }
        let shown = { (values: [String], upTo: Int) -> String in
            let length = max(8, upTo + 3)
            return "[" + values.prefix(length).joined(separator: ", ") + (values.count > length ? ", …]" : "]")
        }
        let message = "order: under re-entrant demand the values arrived as \(shown(got, mismatch.0)); a fresh"
            + " publisher given .max(\(count)) up front delivers \(shown(expected, mismatch.1)) — value"
            + " #\(mismatch.0 + 1) is \(got[mismatch.0]) where \(expected[mismatch.1]) was expected"
        return [Violation(rule: .reentrancy, scenario: scenario, message: message, history: main.history,
                          eventIndex: main.values[mismatch.0].index)]
    }

    /// The indices of the values of `values` that `other` delivered too (each value as many times
    /// as both delivered it, earliest first).
    private static func shared(_ values: [String], with other: [String]) -> [Int] {
        var available: [String: Int] = [:]
        for value in other { available[value, default: 0] += 1 }
        var kept: [Int] = []
        for (index, value) in values.enumerated() where available[value, default: 0] > 0 {
            available[value]! -= 1
            kept.append(index)
        }
        return kept
    }

    /// The `cancelFromAnotherThread` scenario: trials until one breaks a rule. The first cancels
    /// after a random delay; for a publisher that delivered on the kit's threads, the next ones are
    /// aimed (``ContractCancelRace``: the cancel lands as a value returns) and go on until
    /// `aimedRaceTrials` of them ran with both threads at once. One verification at a time runs
    /// them in a process (``ContractRaceTurns``): aimed trials spin two threads each, and several
    /// at once on a few cores would keep each other from running at once.
    private func raceCancels() async -> [Violation] {
        let first = await pass(.cancelFromAnotherThread)
        if !first.violations.isEmpty { return Self.numbered(first.violations, trial: 1) }
        if first.asynchronous {
            for trial in 2...max(2, Self.asynchronousRaceTrials) {
                let result = await pass(.cancelFromAnotherThread)
                if !result.violations.isEmpty { return Self.numbered(result.violations, trial: trial) }
            }
            return []
        }
        // No value: nothing to aim at.
        if first.values.isEmpty { return [] }
        let contended = await ContractRaceTurns.shared.begin()
        let violations = await aimedRaces(
            values: first.values.count, timeLimit: contended ? Self.contendedRaceTimeLimit : Self.raceTimeLimit)
        await ContractRaceTurns.shared.end()
        return violations
    }

    /// The aimed trials, on a thread of the kit's (``ContractAimedRaces``), watched: trials that
    /// stop starting for 10 s (or `timeout`, if longer) are reported as a call that hung.
    private func aimedRaces(values: Int, timeLimit: Duration) async -> [Violation] {
        let kind = scenario.kind
        let races = ContractAimedRaces<P>(
            values: values, aimedTrials: Self.aimedRaceTrials, trialLimit: Self.raceTrialLimit,
            timeLimit: timeLimit, makePlan: { [self] race in plan(for: kind, race: race) },
            makeFixture: makeFixture)
        races.start()
        var started = races.trialsStarted.load(ordering: .acquiring)
        while !(await races.finished.wait(timeout: max(configuration.timeout, .seconds(10)))) {
            let now = races.trialsStarted.load(ordering: .acquiring)
            if now == started, let probe = races.currentProbe {
                probe.abandon()
                let (history, findings) = probe.results
                let running = probe.callsInFlight
                var message = "aimed trial \(now + 1) did not return within \(max(configuration.timeout, .seconds(10)))"
                    + " (a deadlock, or an endless wait)"
                if !running.isEmpty { message += "; calls still running, outermost first: " + running.joined(separator: " > ") }
                return violations(history: history, findings: findings, extra: [(.reentrancy, message, nil)])
            }
            started = now
        }
        guard case .broke(let trial, let history, let findings) = races.result else { return [] }
        return Self.numbered(violations(history: history, findings: findings, extra: []), trial: trial)
    }

    /// `violations`, each saying which trial of the scenario found it.
    private static func numbered(_ violations: [Violation], trial: Int) -> [Violation] {
        violations.map {
            Violation(rule: $0.rule, scenario: $0.scenario, message: $0.message + " (trial \(trial))",
                      occurrences: $0.occurrences, history: $0.history, eventIndex: $0.eventIndex)
        }
    }

    // MARK: - Steps

    /// Starts the thread that cancels once the subscription has arrived and a random 20–400 µs
    /// have passed.
    private func startCanceller(_ context: ContractScenarioContext<P>) -> ContractSignal {
        let signal = ContractSignal()
        let delay = UInt32.random(in: 20...400)
        startContractThread {
            do {
                let probe = context.probe!
                probe.kitCall {
                    let deadline = ContinuousClock.now + .milliseconds(50)
                    while probe.snapshot.subscriptions == 0 && ContinuousClock.now < deadline { contractYield() }
                    contractSleep(microseconds: delay)
                    probe.cancel("from another thread, \(delay) µs after the subscription arrived")
                }
            }
            signal.set()
        }
        return signal
    }

    /// Waits for the canceller. Only its `cancel()` can hang on the publisher: while the thread
    /// has not made it yet (not scheduled, on a loaded machine), the kit waits on, up to 30 s.
    private func awaitCanceller(_ canceller: ContractSignal, _ context: ContractScenarioContext<P>) async -> Hang? {
        let deadline = ContinuousClock.now + .seconds(30)
        while !(await canceller.wait(timeout: configuration.timeout)) {
            if !probe(context).callsInFlight.isEmpty {
                return await watch(canceller, "cancel() from another thread", context)
            }
            if ContinuousClock.now >= deadline { return nil }
        }
        return nil
    }

    /// Runs the steps of `kind`; returns the call that hung, if one did.
    private func drive(
        _ context: ContractScenarioContext<P>, _ kind: Scenario.Kind, on worker: ContractWorker
    ) async -> Hang? {
        let make = makeFixture
        let canceller = kind == .cancelFromAnotherThread ? startCanceller(context) : nil
        if let hang = await step("receive(subscriber:) (subscribing the probe)", context, worker, { context in
            context.fixture = make(context.probe!)
            context.fixture!.publisher.subscribe(context.probe!)
        }) { return hang }

        let driveStep: @Sendable (ContractScenarioContext<P>) -> Void = { $0.fixture!.drive() }
        switch kind {
        case .unlimited, .demandFromReceive, .returnedDemandOnce, .requestInsideReceive, .order, .cancelInsideReceive:
            if let hang = await step("drive", context, worker, driveStep) { return hang }
            await settle(context) { $0.ended }

        case .upFront(let count):
            if let hang = await step("drive", context, worker, driveStep) { return hang }
            await settle(context) { $0.ended || $0.values >= count }

        case .cancelFromAnotherThread:
            if let hang = await step("drive", context, worker, driveStep) { return hang }
            if let canceller, let hang = await awaitCanceller(canceller, context) { return hang }
            await settle(context) { $0.ended }

        case .oneAtATime, .bursts:
            if let hang = await step("drive", context, worker, driveStep) { return hang }
            if let hang = await pull(context, kind, worker) { return hang }

        case .lateDemand:
            if let hang = await step("drive", context, worker, driveStep) { return hang }
            await settle(context) { $0.ended }
            if !probe(context).snapshot.ended {
                if let hang = await step("request(.unlimited)", context, worker, { context in
                    context.probe!.request(.unlimited, "from outside receive, after settling")
                }) { return hang }
                await settle(context) { $0.ended }
            }

        case .cancelMidStream:
            if let hang = await step("drive", context, worker, driveStep) { return hang }
            await settle(context) { $0.ended || $0.values >= 2 }
            if !probe(context).snapshot.ended {
                if let hang = await step("cancel()", context, worker, { context in
                    context.probe!.cancel("from outside receive")
                    context.probe!.cancel("again, from outside receive")
                    context.probe!.request(.max(3), "after cancel, from outside receive")
                }) { return hang }
            }

        case .cancelEarly:
            if let hang = await step("cancel()", context, worker, { context in
                context.probe!.cancel("from outside receive, before any demand")
                context.probe!.request(.max(1), "after cancel, from outside receive")
            }) { return hang }
            if let hang = await step("drive", context, worker, driveStep) { return hang }

        case .concurrent:
            if let hang = await concurrently(context, worker) { return hang }
        }

        if !probe(context).snapshot.ended {
            if let hang = await step("cancel()", context, worker, { context in
                context.probe!.cancel("from outside receive, to end the scenario")
            }) { return hang }
        }
        if probe(context).snapshot.asynchronous {
            // Give late events (values or a completion after the end) a chance to show.
            await contractSleep(configuration.settle)
        }
        return nil
    }

    private func probe(_ context: ContractScenarioContext<P>) -> Probe { context.probe! }

    /// Runs `body` on the scenario's worker thread as a kit call, waiting for it with a progress
    /// watchdog. Returns the hang if it did not return.
    private func step(
        _ label: String, _ context: ContractScenarioContext<P>, _ worker: ContractWorker,
        _ body: @escaping @Sendable (ContractScenarioContext<P>) -> Void
    ) async -> Hang? {
        let signal = ContractSignal()
        worker.submit({ context.probe!.kitCall { body(context) } }, signal: signal)
        return await watch(signal, label, context)
    }

    /// Waits for `signal`; gives up once `timeout` passes without the probe seeing anything new.
    private func watch(_ signal: ContractSignal, _ label: String, _ context: ContractScenarioContext<P>) async -> Hang? {
        var progress = probe(context).snapshot.generation
        while true {
            if await signal.wait(timeout: configuration.timeout) { return nil }
            let now = probe(context).snapshot.generation
            if now == progress {
                let probe = probe(context)
                probe.abandon()
                return Hang(label: label, inFlight: probe.callsInFlight, parkedRunaway: probe.parkedARunaway,
                            repeatedCancel: probe.repeatedCancelInFlight)
            }
            progress = now
        }
    }

    /// Waits while events keep coming, until `done` holds or the publisher is quiet for `settle`.
    private func settle(_ context: ContractScenarioContext<P>, until done: (ContractProbeState) -> Bool) async {
        while true {
            let state = probe(context).snapshot
            if done(state) { return }
            guard await probe(context).waitForEvent(after: state.generation, timeout: configuration.settle) else { return }
        }
    }

    /// The outside-demand loop of `oneAtATime` and `bursts`: whenever everything demanded has
    /// arrived, request the next burst; while the publisher delivers synchronously the whole loop
    /// runs in one job.
    private func pull(_ context: ContractScenarioContext<P>, _ kind: Scenario.Kind, _ worker: ContractWorker) async -> Hang? {
        let bursts = Self.bursts(for: kind)
        let limit = configuration.valueLimit
        while true {
            let state = probe(context).snapshot
            if state.ended || state.subscriptions == 0 || !state.demandMet {
                if state.ended { return nil }
                guard await probe(context).waitForEvent(after: state.generation, timeout: configuration.settle) else {
                    return nil
                }
                continue
            }
            if state.values >= limit { return nil }
            if let hang = await step("request(_:) from outside receive", context, worker, { context in
                let probe = context.probe!
                while true {
                    let state = probe.snapshot
                    guard !state.ended, state.demandMet, state.values < limit else { return }
                    for demand in bursts[context.burst % bursts.count] {
                        probe.request(demand, "from outside receive")
                    }
                    context.burst += 1
                }
            }) { return hang }
        }
    }

    /// The `concurrent` scenario.
    private func concurrently(_ context: ContractScenarioContext<P>, _ worker: ContractWorker) async -> Hang? {
        // Phase 1: four threads request while the fixture is driven on the worker.
        let requesters = 4
        var barrier = ContractBarrier(count: requesters + 1)
        var signals: [ContractSignal] = []
        for index in 0..<requesters {
            signals.append(spawn(context, barrier) { probe in
                for _ in 0..<25 { probe.request(.max(1), "from requester \(index + 1)") }
            })
        }
        let driveBarrier = barrier
        let driven = ContractSignal()
        worker.submit({
            context.probe!.kitCall {
                driveBarrier.arriveAndWait()
                context.fixture!.drive()
            }
        }, signal: driven)
        if let hang = await watch(driven, "drive (while other threads request)", context) { return hang }
        for (index, signal) in signals.enumerated() {
            if let hang = await watch(signal, "request(.max(1)) on requester thread \(index + 1)", context) { return hang }
        }
        await settle(context) { $0.ended || $0.demandMet }

        // Phase 2: four threads cancel while a fifth requests.
        barrier = ContractBarrier(count: 5)
        signals = []
        for index in 0..<4 {
            signals.append(spawn(context, barrier) { probe in probe.cancel("from canceller \(index + 1)") })
        }
        signals.append(spawn(context, barrier) { probe in probe.request(.max(1), "while others cancel") })
        for (index, signal) in signals.enumerated() {
            let label = index < 4 ? "cancel() on canceller thread \(index + 1)" : "request(.max(1)) while others cancel"
            if let hang = await watch(signal, label, context) { return hang }
        }
        return nil
    }

    /// Starts a thread that runs `body` as a kit call once the barrier opens.
    private func spawn(
        _ context: ContractScenarioContext<P>, _ barrier: ContractBarrier, _ body: @escaping @Sendable (Probe) -> Void
    ) -> ContractSignal {
        let signal = ContractSignal()
        startContractThread {
            context.probe!.kitCall {
                barrier.arriveAndWait()
                body(context.probe!)
            }
            signal.set()
        }
        return signal
    }

    // MARK: - Verdict

    private func conclude(_ context: ContractScenarioContext<P>, worker: ContractWorker, hang: Hang?) async -> [Violation] {
        let state = probe(context).snapshot
        var (history, findings) = probe(context).results
        var extra: [(PublisherContract.Rule, String, Int?)] = []

        if let hang {
            var rule: PublisherContract.Rule = !hang.inFlight.isEmpty || scenario.kind != .concurrent
                ? .reentrancy : .threadSafety
            var message: String
            if let ordinal = hang.repeatedCancel, !hang.parkedRunaway {
                // The first cancel() returned: what hangs is cancelling again, not re-entrancy.
                rule = .release
                message = "\(hang.label) did not return within \(configuration.timeout): call \(ordinal) to cancel()"
                    + " never returned, after an earlier one had been made; cancel() must be idempotent and"
                    + " thread-safe (a repeated cancel returns at once)"
                message += "; calls still running, outermost first: " + hang.inFlight.joined(separator: " > ")
            } else if hang.parkedRunaway {
                message = "\(hang.label) never returned: the publisher kept delivering after cancel/completion"
                    + " (over 1000 events after the completion or a returned cancel(), or 100,000 after a cancel() still"
                    + " running); the kit parked that thread"
            } else {
                message = "\(hang.label) did not return within \(configuration.timeout) and nothing happened meanwhile"
                    + " (a deadlock, or an endless wait)"
                if !hang.inFlight.isEmpty {
                    message += "; calls still running, outermost first: " + hang.inFlight.joined(separator: " > ")
                }
            }
            extra.append((rule, message, nil))
            // The hung thread owns the scenario now: leave the context alone.
            return violations(history: history, findings: findings, extra: extra)
        }

        if state.subscriptions == 0 {
            extra.append((.subscriptionFirst, "the publisher never called receive(subscription:)", nil))
        }
        if configuration.operatorMode, let finding = await checkUpstreams(context) {
            extra.append(finding)
            (history, findings) = probe(context).results
        }

        // Release check: drop every reference the kit holds; the probe must go away.
        let weakProbe = ContractWeakBox(probe(context))
        context.probe = nil
        if !(await released(weakProbe, asynchronous: state.asynchronous)) {
            let ending = state.completions > 0 ? "completion" : "cancel"
            weakProbe.value?.releaseSubscription()
            let cycle = await released(weakProbe, asynchronous: state.asynchronous)
            if let probe = weakProbe.value {
                // Events after the snapshot (late ones) are part of the story.
                (history, findings) = probe.results
            }
            let message = cycle
                ? "the subscriber was still retained after \(ending): its subscription keeps a strong reference to it"
                    + " (a retain cycle with any subscriber that stores its subscription); release the downstream on"
                    + " cancel and on completion"
                : "the subscriber was still retained after \(ending), even once the probe had dropped its subscription:"
                    + " something else (the publisher, a global, a pending closure) keeps it"
            extra.append((.release, message, nil))
        }
        let releasedFixture = ContractSignal()
        worker.submit({ context.fixture = nil }, signal: releasedFixture)
        _ = await releasedFixture.wait(timeout: configuration.timeout)
        return violations(history: history, findings: findings, extra: extra)
    }

    /// Operator mode: once the operator's subscriber has completed or cancelled, no probe upstream
    /// may be left live (waiting up to `settle` for asynchronous teardown).
    private func checkUpstreams(_ context: ContractScenarioContext<P>) async -> (PublisherContract.Rule, String, Int?)? {
        let probe = probe(context)
        let deadline = ContinuousClock.now + configuration.settle
        var statuses = probe.upstreamStatuses
        while statuses.contains(.live) && ContinuousClock.now < deadline {
            await contractSleep(.milliseconds(1))
            statuses = probe.upstreamStatuses
        }
        let live = statuses.indices.filter { statuses[$0] == .live }.map { "\($0 + 1)" }
        guard !live.isEmpty else { return nil }
        let names = (live.count == 1 ? "upstream " : "upstreams ") + live.joined(separator: ", ")
        let state = probe.snapshot
        if state.completions > 0 {
            return (.earlyFinish, "the operator completed its subscriber while \(names) was still live (neither"
                + " completed nor cancelled): an operator that finishes early must cancel its upstream", nil)
        }
        if state.cancelCalls > 0 {
            return (.release, "\(names) was still live after the subscriber cancelled: an operator's cancel() must"
                + " cancel its upstream subscriptions", nil)
        }
        return nil
    }

    /// Whether the probe is gone, waiting for asynchronous teardown: up to `settle` (at least
    /// 5 ms) for a publisher that delivered only on the kit's threads; up to `timeout` (at least
    /// `settle`) for one that delivered on threads of its own, whose teardown may wait for them
    /// to be scheduled (a loaded machine can keep a runnable thread waiting for a second). The
    /// wait ends as soon as the probe is gone: only a publisher that keeps it waits it out.
    private func released(_ weakProbe: ContractWeakBox<Probe>, asynchronous: Bool) async -> Bool {
        let patience = asynchronous ? max(configuration.settle, configuration.timeout) : configuration.settle
        let deadline = ContinuousClock.now + max(patience, .milliseconds(5))
        while weakProbe.value != nil {
            if ContinuousClock.now >= deadline { return false }
            await contractSleep(.milliseconds(1))
        }
        return true
    }

    func violations(
        history: [String], findings: [ContractFinding], extra: [(PublisherContract.Rule, String, Int?)]
    ) -> [Violation] {
        findings.map {
            Violation(rule: $0.rule, scenario: scenario, message: $0.message, occurrences: $0.occurrences,
                      history: history, eventIndex: $0.eventIndex)
        } + extra.map {
            Violation(rule: $0.0, scenario: scenario, message: $0.1, history: history, eventIndex: $0.2)
        }
    }
}
