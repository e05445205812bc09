import SluiceCore
import Synchronization

/// The aimed trials of the `cancelFromAnotherThread` scenario for a publisher that delivers on the
/// kit's threads, run back to back on one thread of the kit's, with no hop through the async side
/// between trials (on a busy cooperative pool each hop can cost more than a trial).
///
/// Each trial makes a fresh fixture, starts a canceller thread that meets the probe at one of the
/// first values (``ContractCancelRace``), subscribes and drives on this thread, and ends by
/// cancelling if nothing else ended it. The trials stop at the first that breaks a rule, or once
/// `aimedTrials` of them ran with both threads at once (or `trialLimit` trials or `timeLimit`
/// went by, or 16 trials in a row did not reach the value aimed at). They check what the probe sees as it happens (rules 1–3, 7, 8); the release check and
/// the hang watchdog of a full scenario belong to its first trial.
final class ContractAimedRaces<P: Publisher & SendableMetatype>: @unchecked Sendable {
    typealias Probe = ContractProbe<P.Output, P.Failure>

    /// How the trials ended.
    enum Outcome {
        case passed
        case broke(trial: Int, history: [String], findings: [ContractFinding])
    }

    private let makeFixture: @Sendable (any ContractUpstreamObserver) -> PublisherContract.Fixture<P>
    private let makePlan: @Sendable (ContractCancelRace) -> ContractProbePlan
    private let aimedTrials: Int
    private let trialLimit: Int
    private let timeLimit: Duration
    /// How many values the scenario's first trial received (the race aims among the first four).
    private let values: Int

    /// Trials started so far: the async side's sign of progress.
    let trialsStarted = Atomic<Int>(0)
    /// Set once the trials are over.
    let finished = ContractSignal()

    private let lock = Lock()
    // Guarded by `lock`.
    private var current: Probe?
    private var outcome: Outcome = .passed

    init(
        values: Int, aimedTrials: Int, trialLimit: Int, timeLimit: Duration,
        makePlan: @escaping @Sendable (ContractCancelRace) -> ContractProbePlan,
        makeFixture: @escaping @Sendable (any ContractUpstreamObserver) -> PublisherContract.Fixture<P>
    ) {
        self.values = values
        self.aimedTrials = aimedTrials
        self.trialLimit = trialLimit
        self.timeLimit = timeLimit
        self.makePlan = makePlan
        self.makeFixture = makeFixture
    }

    /// Starts the trials on a thread of their own.
    func start() {
        startContractThread { [self] in
            let result = run()
            lock.withLock { outcome = result }
            finished.set()
        }
    }

    /// How the trials ended (`.passed` until they have).
    var result: Outcome { lock.withLock { outcome } }

    /// The probe of the trial under way.
    var currentProbe: Probe? { lock.withLock { current } }

    private func run() -> Outcome {
        let start = ContinuousClock.now
        var aim = ContractCancelAim()
        var trial = 1  // the scenario's first trial, unaimed, ran before these
        var aimed = 0
        var unreached = 0
        while aimed < aimedTrials && unreached < 16 && trial < trialLimit && ContinuousClock.now - start < timeLimit {
            trial += 1
            let race = ContractCancelRace.aimed(by: &aim, values: values)
            let probe = Probe(plan: makePlan(race))
            lock.withLock { current = probe }
            trialsStarted.add(1, ordering: .releasing)
            runTrial(probe, race)
            let (history, findings) = probe.results
            if !findings.isEmpty { return .broke(trial: trial, history: history, findings: findings) }
            // A publisher that stops reaching the values aimed at (its values vary from run to run)
            // is given up on after 16 such trials in a row.
            unreached = race.reachedValue ? 0 : unreached + 1
            if race.aimed {
                aimed += 1
                aim.learn(late: probe.snapshot.values > race.atValue)
            }
        }
        return .passed
    }

    private func runTrial(_ probe: Probe, _ race: ContractCancelRace) {
        let canceller = ContractCancellerDone()
        startContractThread {
            probe.kitCall {
                let deadline = ContinuousClock.now + .milliseconds(50)
                while probe.snapshot.subscriptions == 0 && ContinuousClock.now < deadline { contractYield() }
                let offset = race.offset.components.seconds * 1_000_000_000
                    + race.offset.components.attoseconds / 1_000_000_000
                probe.cancel("from another thread, \(offset) ns after value #\(race.atValue) returned") {
                    race.waitForGate(until: deadline)
                }
            }
            canceller.done.store(true, ordering: .releasing)
        }
        probe.kitCall {
            var fixture: PublisherContract.Fixture<P>? = makeFixture(probe)
            fixture!.publisher.subscribe(probe)
            fixture!.drive()
            // A synchronous publisher has delivered all it will: the canceller waits no more.
            race.openGate()
            while !canceller.done.load(ordering: .acquiring) { contractYield() }
            if !probe.snapshot.ended { probe.cancel("from outside receive, to end the trial") }
            fixture = nil
        }
    }
}

/// Set by a trial's canceller thread once its cancel has returned.
final class ContractCancellerDone: Sendable {
    let done = Atomic<Bool>(false)
}
