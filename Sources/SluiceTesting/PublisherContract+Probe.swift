import SluiceCore
import Synchronization

/// What the probe does by itself in a scenario.
struct ContractProbePlan: Sendable {
    /// Requested inside `receive(subscription:)` (`.none`: nothing).
    var initialDemand: Subscribers.Demand = .none
    /// Returned from every `receive(_:)` (from the first only, when `returnsDemandOnce`).
    var returnedDemand: Subscribers.Demand = .none
    /// Whether `returnedDemand` is returned from the first `receive(_:)` only.
    var returnsDemandOnce = false
    /// Requested re-entrantly from inside every `receive(_:)` (`.none`: nothing).
    var requestInsideReceive: Subscribers.Demand = .none
    /// The value on whose `receive(_:)` the probe calls `cancel()`, `cancel()` again and
    /// `request(.max(1))`, re-entrantly.
    var cancelInsideReceiveAt: Int?
    /// The probe cancels from inside `receive(_:)` once it has received this many values.
    var valueLimit: Int
    /// Whether the probe lingers a little inside each `receive(_:)`, so that a publisher that
    /// delivers on two threads at once is caught doing it.
    var dwellsInReceive = false
    /// Whether rule 2 (no more values than demanded) is checked: not for
    /// `ObservableObjectPublisher`, which — as Apple's — sends every signal whatever the demand.
    var checksDemand = true
    /// In operator mode, how much the operator may keep requested from each probe upstream.
    var upstreamDemand: PublisherContract.UpstreamDemand = .unbounded
    /// An aimed `cancelFromAnotherThread` trial: the probe lets the canceller go from inside
    /// `receive(_:)` of the race's value, as the last thing before returning.
    var race: ContractCancelRace?
}

/// Where one of the probe upstreams an operator subscribed to stands.
enum ContractUpstreamStatus: Sendable {
    case live, completed, cancelled
}

/// The checks the kit makes; each finding of one kind is reported once per scenario, with a count.
enum ContractCheck: Hashable, Sendable {
    case secondSubscription, beforeSubscription, beyondDemand, afterCompletion, secondCompletion, afterCancel
    case concurrentDelivery
    case upstreamZeroDemand, upstreamOverRequest
}

/// A violation the probe saw as it happened.
struct ContractFinding: Sendable {
    let check: ContractCheck
    let rule: PublisherContract.Rule
    let message: String
    let eventIndex: Int
    var occurrences = 1
}

/// Where the probe stands, as the scenario runner sees it between steps.
struct ContractProbeState: Sendable {
    var subscriptions = 0
    var values = 0
    var granted = Subscribers.Demand.none
    var completions = 0
    var cancelCalls = 0
    var asynchronous = false
    var generation = 0

    /// Completed or cancelled: the scenario has reached its end.
    var ended: Bool { completions > 0 || cancelCalls > 0 }
    /// Every value demanded so far has arrived (never true with unlimited demand).
    var demandMet: Bool { granted.max.map { values >= $0 } ?? false }
}

/// The subscriber the kit subscribes to each fresh publisher. It follows the scenario's plan,
/// records everything it sees (`←`) and does (`→`), and checks each event against the contract
/// as it arrives.
///
/// It keeps its subscription until the runner releases it — even after cancel or completion,
/// like a subscriber that stores its subscription in a property — so a subscription that keeps
/// its subscriber after cancel or completion forms a cycle the release check sees.
///
/// Never calls out while holding its lock: descriptions of values and subscriptions are made
/// before locking; requests and cancels are made after unlocking.
final class ContractProbe<Input, Failure: Error>: Subscriber, CustomStringConvertible, @unchecked Sendable {
    let combineIdentifier = CombineIdentifier()
    let plan: ContractProbePlan

    private let lock = Lock()
    // Everything below is guarded by `lock`.
    private var state = ContractProbeState()
    private var history: [String] = []
    private var findings: [ContractFinding] = []
    private var findingIndex: [ContractCheck: Int] = [:]
    private var subscription: (any Subscription)?
    /// Threads on which a `cancel()` the probe made has returned.
    private var cancelReturnedOn: Set<UInt> = []
    /// Set (without the lock) the moment a `cancel()` the probe made returns, before its thread is
    /// added to `cancelReturnedOn`: a publisher delivering in a tight loop on another thread can
    /// keep the lock from the cancelling thread for as long as the loop runs, and what it delivers
    /// meanwhile comes after the cancel all the same.
    private let aCancelReturned = Atomic<Bool>(false)
    /// Whether the one event allowed to be in flight across a cancel on another thread has come.
    private var inFlightEventSeen = false
    /// Threads inside a `cancel()` the probe made, by depth.
    private var cancelling: [UInt: Int] = [:]
    /// Threads inside one of the probe's `receive` methods, by depth.
    private var delivering: [UInt: Int] = [:]
    /// Threads inside `receive(_:)` or `receive(completion:)`, by depth: two threads at once break
    /// rule 8. (A value arriving on another thread while `receive(subscription:)` is still running
    /// is allowed: once the subscriber has requested, `receive(on:)` may deliver at once.)
    private var deliveringEvents: [UInt: Int] = [:]
    /// Threads inside a call the kit made (subscribe, request, drive...), by depth.
    private var kitThreads: [UInt: Int] = [:]
    /// Threads in order of first appearance, to name them in the history.
    private var threadNumbers: [UInt: Int] = [:]
    /// Calls into the subscription not yet returned: what, from where; for a `cancel()`, which
    /// call to `cancel()` it is (1 for the first).
    private var inFlight: [Int: (label: String, cancelOrdinal: Int?)] = [:]
    /// The values received, described, and where each is in the history.
    private var received: [(text: String, index: Int)] = []
    /// The probe upstreams the operator under test subscribed to (operator mode), by number.
    private var upstreams: [ContractUpstreamStatus] = []
    /// Per probe upstream: the demand the operator gave it (requested and returned) and the values
    /// it has sent (counted before each delivery). Both are counted here, under one lock, so that
    /// what is outstanding never looks larger than it is because of a value in flight.
    private var upstreamDemand: [(given: Subscribers.Demand, sent: Int)] = []
    private var nextCallID = 0
    private var waiters: [ContractSignal] = []
    private var abandoned = false
    private var parkedRunaway = false
    private var eventsAfterEnd = 0
    /// Values that arrived before any subscription: reported under rule 1, not counted against demand.
    private var valuesBeforeSubscription = 0

    init(plan: ContractProbePlan) {
        self.plan = plan
    }

    /// `"ContractProbe"`.
    var description: String { "ContractProbe" }

    // MARK: - Subscriber

    /// What to do after recording a subscription, decided under the lock.
    private enum SubscriptionStep {
        case park, skip, none
        case request(Subscribers.Demand)
        case cancelSecond(any Subscription)
    }

    /// What to do inside `receive(_:)` after recording the value.
    private enum ValueAction {
        case none
        case request(Subscribers.Demand)
        case cancelAndPoke
        case cancelAtLimit
    }

    /// What to do after recording a value, decided under the lock.
    private enum ValueStep {
        case park, skip
        case proceed(Subscribers.Demand, ValueAction, Int)
    }

    func receive(subscription: any Subscription) {
        let name = Self.describe(subscription)
        let thread = contractThreadID()
        let next = lock.withLock { () -> SubscriptionStep in
            if abandoned { return kitThreads[thread] != nil ? .park : .skip }
            beginDelivery(thread, subscription: true)
            state.subscriptions += 1
            let index = record("← receive(subscription: \(name))", thread)
            if state.subscriptions > 1 {
                find(.secondSubscription, .subscriptionFirst,
                     "receive(subscription:) was called a second time (\(name)); the probe cancels the extra one, as sink does",
                     index)
                return .cancelSecond(subscription)
            }
            self.subscription = subscription
            return plan.initialDemand == .none ? .none : .request(plan.initialDemand)
        }
        switch next {
        case .park:
            parkContractThreadForever()
        case .skip:
            return
        case .none:
            break
        case .request(let demand):
            call(.request(demand), "inside receive(subscription:)")
        case .cancelSecond(let extra):
            let id = lock.withLock { beginCall("cancel() on the second subscription", thread, cancelOrdinal: nil) }
            wake()
            extra.cancel()
            lock.withLock { _ = inFlight.removeValue(forKey: id) }
        }
        lock.withLock { endDelivery(thread, subscription: true) }
        wake()
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let text = Self.describe(input)
        let thread = contractThreadID()
        let next = lock.withLock { () -> ValueStep in
            if abandoned { return kitThreads[thread] != nil ? .park : .skip }
            beginDelivery(thread)
            state.values += 1
            let number = state.values
            let index = record("← value #\(number): \(text)", thread)
            received.append((text, index))
            if state.subscriptions == 0 {
                valuesBeforeSubscription += 1
                find(.beforeSubscription, .subscriptionFirst,
                     "value #\(number) (\(text)) arrived before receive(subscription:)", index)
            } else if state.completions > 0 {
                find(.afterCompletion, .termination, "value #\(number) (\(text)) arrived after the completion", index)
            } else if let late = lateness(thread, index) {
                find(.afterCancel, .termination, "value #\(number) (\(text)) \(late)", index)
            } else if plan.checksDemand && state.granted < number - valuesBeforeSubscription {
                // Checked only while the subscription is live: each event is reported under the
                // one rule it breaks first (a value after the end is a rule 3 violation whatever
                // the demand; one before the subscription, a rule 1 violation).
                find(.beyondDemand, .demand,
                     "value #\(number) (\(text)) arrived with only \(Self.describe(demand: state.granted)) demanded",
                     index)
            }
            if state.ended {
                eventsAfterEnd += 1
                // A cancel counts from when it was called, but the publisher sees it only once the
                // cancelling thread gets to run `cancel()`: a thread preempted in between (two cores
                // and a parallel test run) lets a fast publisher send a thousand values meanwhile.
                // Until a cancel has returned, only a far longer run is taken for a runaway.
                let returned = !cancelReturnedOn.isEmpty || aCancelReturned.load(ordering: .acquiring)
                let runaway = state.completions == 0 && !returned ? 100_000 : 1_000
                if eventsAfterEnd > runaway && kitThreads[thread] != nil {
                    // A publisher that ignores cancel/completion in a loop on the kit's thread:
                    // stop it here rather than let it spin; the runner reports the hang.
                    abandoned = true
                    parkedRunaway = true
                    return .park
                }
                return .proceed(.none, .none, number)
            }
            var action = ValueAction.none
            var returned = plan.returnedDemand
            if let at = plan.cancelInsideReceiveAt, number >= at {
                action = .cancelAndPoke
                returned = .none
            } else if number >= plan.valueLimit {
                action = .cancelAtLimit
                returned = .none
            } else if plan.requestInsideReceive != .none {
                action = .request(plan.requestInsideReceive)
            }
            if plan.returnsDemandOnce && number > 1 { returned = .none }
            if returned != .none {
                state.granted += returned
                history[index] += "   (returns \(Self.describe(demand: returned)))"
            }
            return .proceed(returned, action, number)
        }
        guard case .proceed(let returned, let action, let number) = next else {
            if case .park = next { parkContractThreadForever() }
            return .none
        }
        if plan.dwellsInReceive { contractDwell() }
        switch action {
        case .none:
            break
        case .request(let demand):
            call(.request(demand), "inside receive(value #\(number))")
        case .cancelAndPoke:
            call(.cancel, "inside receive(value #\(number))")
            call(.cancel, "again, inside receive(value #\(number))")
            call(.request(.max(1)), "after cancel, inside receive(value #\(number))")
        case .cancelAtLimit:
            call(.cancel, "inside receive(value #\(number)): value limit \(plan.valueLimit) reached")
        }
        lock.withLock { endDelivery(thread) }
        wake()
        if let race = plan.race, number == race.atValue { race.openGateAndWait() }
        return returned
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let text: String
        switch completion {
        case .finished: text = "finished"
        case .failure(let error): text = "failure(\(Self.describe(error)))"
        }
        let thread = contractThreadID()
        let park = lock.withLock { () -> Bool? in
            if abandoned { return kitThreads[thread] != nil }
            beginDelivery(thread)
            state.completions += 1
            let index = record("← \(text)", thread)
            if state.subscriptions == 0 {
                find(.beforeSubscription, .subscriptionFirst, "the completion (\(text)) arrived before receive(subscription:)",
                     index)
            }
            if state.completions > 1 {
                find(.secondCompletion, .termination, "a second completion (\(text)) arrived", index)
            } else if let late = lateness(thread, index) {
                find(.afterCancel, .termination, "the completion (\(text)) \(late)", index)
            }
            endDelivery(thread)
            return nil
        }
        if park == true { parkContractThreadForever() }
        wake()
        plan.race?.openGate()
    }

    // MARK: - Calls the kit makes

    private enum Call: CustomStringConvertible {
        case request(Subscribers.Demand)
        case cancel

        var description: String {
            switch self {
            case .request(let demand): "request(\(ContractProbe.describe(demand: demand)))"
            case .cancel: "cancel()"
            }
        }
    }

    /// Requests `demand` from the subscription (if one has arrived), counting it first.
    func request(_ demand: Subscribers.Demand, _ context: String) {
        call(.request(demand), context)
    }

    /// Cancels the subscription (if one has arrived). The probe keeps it until ``releaseSubscription()``.
    func cancel(_ context: String) {
        call(.cancel, context)
    }

    /// Cancels the subscription (if one has arrived) as soon as `gate` returns, with nothing in
    /// between that can wait: the probe's lock — which a publisher delivering in a tight loop on
    /// another thread can keep taking first — is not touched from the gate until the cancel has
    /// returned. The call is marked in flight (for the watchdog) before the gate, and entered in
    /// the history and counted as it returns.
    func cancel(_ context: String, after gate: () -> Void) {
        let thread = contractThreadID()
        let entry = "→ cancel() \(context)"
        let prepared = lock.withLock { () -> (any Subscription, Int)? in
            guard let subscription else { return nil }
            return (subscription, beginCall("cancel() \(context)", thread, cancelOrdinal: state.cancelCalls + 1))
        }
        gate()
        guard let (subscription, id) = prepared else {
            lock.withLock { _ = record(entry + " — not made: no subscription yet", thread) }
            wake()
            return
        }
        subscription.cancel()
        aCancelReturned.store(true, ordering: .releasing)
        lock.withLock {
            state.cancelCalls += 1
            record(entry + " — entered as it returned", thread)
            inFlight[id] = nil
            cancelReturnedOn.insert(thread)
        }
        wake()
    }

    private func call(_ call: Call, _ context: String) {
        let thread = contractThreadID()
        let entry = "→ \(call) \(context)"
        let target = lock.withLock { () -> (any Subscription, Int)? in
            guard let subscription else {
                record(entry + " — not made: no subscription yet", thread)
                return nil
            }
            var ordinal: Int?
            switch call {
            case .request(let demand):
                state.granted += demand
            case .cancel:
                state.cancelCalls += 1
                ordinal = state.cancelCalls
                cancelling[thread, default: 0] += 1
            }
            record(entry, thread)
            return (subscription, beginCall("\(call) \(context)", thread, cancelOrdinal: ordinal))
        }
        wake()
        guard let (subscription, id) = target else { return }
        switch call {
        case .request(let demand): subscription.request(demand)
        case .cancel:
            subscription.cancel()
            aCancelReturned.store(true, ordering: .releasing)
        }
        lock.withLock {
            inFlight[id] = nil
            if case .cancel = call {
                cancelling[thread]! -= 1
                if cancelling[thread] == 0 { cancelling[thread] = nil }
                cancelReturnedOn.insert(thread)
            }
        }
    }

    /// Runs `body` (a call the kit makes into the publisher, subscription or fixture) marking the
    /// current thread as the kit's: events arriving on it are synchronous.
    func kitCall(_ body: () -> Void) {
        let thread = contractThreadID()
        lock.withLock { kitThreads[thread, default: 0] += 1 }
        body()
        lock.withLock {
            kitThreads[thread]! -= 1
            if kitThreads[thread] == 0 { kitThreads[thread] = nil }
        }
    }

    // MARK: - What the runner reads

    var snapshot: ContractProbeState { lock.withLock { state } }

    /// Waits until anything new happens (`true`), or `timeout` passes quietly (`false`).
    func waitForEvent(after generation: Int, timeout: Duration) async -> Bool {
        let signal = ContractSignal()
        let already = lock.withLock { () -> Bool in
            if state.generation != generation { return true }
            waiters.append(signal)
            return false
        }
        if already { return true }
        return await signal.wait(timeout: timeout)
    }

    /// The history and the findings so far.
    var results: (history: [String], findings: [ContractFinding]) { lock.withLock { (history, findings) } }

    /// The calls into the subscription made by the probe that have not returned.
    var callsInFlight: [String] { lock.withLock { inFlight.sorted { $0.key < $1.key }.map(\.value.label) } }

    /// The highest ordinal of a `cancel()` not yet returned, if it is a repeated one (2 or more):
    /// a repeated cancel that hangs breaks rule 4, not rule 7.
    var repeatedCancelInFlight: Int? {
        lock.withLock { inFlight.values.compactMap(\.cancelOrdinal).filter { $0 > 1 }.max() }
    }

    /// The values received, described, each with its index in the history.
    var receivedValues: [(text: String, index: Int)] { lock.withLock { received } }

    /// The probe upstreams' states, by number (operator mode).
    var upstreamStatuses: [ContractUpstreamStatus] { lock.withLock { upstreams } }

    // MARK: - Operator mode: what the probe upstreams report

    /// A probe upstream has been subscribed to by the operator; returns its number (1, 2...).
    func upstreamSubscribed() -> Int {
        let thread = contractThreadID()
        return lock.withLock {
            upstreams.append(.live)
            upstreamDemand.append((.none, 0))
            record("⇡ upstream \(upstreams.count): subscribed by the operator", thread)
            return upstreams.count
        }
    }

    /// Upstream `number` is about to deliver a value.
    func upstreamSends(_ number: Int) {
        lock.withLock { upstreamDemand[number - 1].sent += 1 }
    }

    /// The operator requested `demand` from upstream `number` (or returned it from `receive(_:)`).
    func upstreamDemanded(_ number: Int, _ demand: Subscribers.Demand, returned: Bool) {
        let thread = contractThreadID()
        lock.withLock {
            upstreamDemand[number - 1].given += demand
            let (given, sent) = upstreamDemand[number - 1]
            let outstanding = given.max.map { Subscribers.Demand.max(max(0, $0 - sent)) } ?? .unlimited
            let how = returned ? "returned \(Self.describe(demand: demand)) from receive(_:)" : "request(\(Self.describe(demand: demand)))"
            let index = record("⇡ upstream \(number): \(how)", thread)
            // An upstream accepts demand while live and reports it after releasing its lock: by the
            // time the report arrives it may have ended, and the operator may have passed the same
            // owed demand on to its next upstream (retry, catch). An ended upstream sends nothing
            // more, so what it was left holding cannot break rule 2.
            guard upstreams[number - 1] == .live,
                  case .boundedByDownstream(let extra) = plan.upstreamDemand.limit,
                  let granted = state.granted.max, state.completions == 0, state.cancelCalls == 0
            else { return }
            let wanted = max(0, granted - (state.values - valuesBeforeSubscription))
            let allowed = wanted + extra
            if outstanding.max.map({ $0 > allowed }) ?? true {
                find(.upstreamOverRequest, .demand,
                     "the operator left \(Self.describe(demand: outstanding)) requested from upstream \(number) while its"
                        + " subscriber was owed only \(wanted) value\(wanted == 1 ? "" : "s")"
                        + (extra > 0 ? " (+\(extra) allowed)" : "")
                        + ": it asks upstream for more than it was asked for (pass upstreamDemand: .unbounded where"
                        + " that is the operator's documented behaviour)",
                     index)
            }
        }
        wake()
    }

    /// The operator requested `.none` from upstream `number`: recorded, not forwarded (it would trap).
    func upstreamZeroDemand(_ number: Int) {
        let thread = contractThreadID()
        lock.withLock {
            let index = record("⇡ upstream \(number): request(.none)", thread)
            find(.upstreamZeroDemand, .zeroDemand,
                 "the operator called request(.none) on upstream \(number): zero demand is a programmer error"
                    + " (Combine traps; the kit's probe upstream records it instead)",
                 index)
        }
        wake()
    }

    /// Upstream `number` completed (it sent `completion`) or was cancelled by the operator.
    func upstreamEnded(_ number: Int, _ status: ContractUpstreamStatus, _ text: String) {
        let thread = contractThreadID()
        lock.withLock {
            if upstreams[number - 1] == .live { upstreams[number - 1] = status }
            record("⇡ upstream \(number): \(text)", thread)
        }
        wake()
    }

    /// Whether the probe parked a thread that kept delivering after the end.
    var parkedARunaway: Bool { lock.withLock { parkedRunaway } }

    /// Gives up on the scenario: any later delivery on one of the kit's threads parks it.
    func abandon() {
        lock.withLock { abandoned = true }
    }

    /// Drops the subscription (breaking the cycle with a subscription that kept its subscriber).
    func releaseSubscription() {
        let released = lock.withLock { () -> (any Subscription)? in
            defer { subscription = nil }
            return subscription
        }
        _ = released
    }

    // MARK: - Bookkeeping (lock held)

    private func beginDelivery(_ thread: UInt, subscription: Bool = false) {
        if kitThreads[thread] == nil { state.asynchronous = true }
        delivering[thread, default: 0] += 1
        if subscription { return }
        if let other = deliveringEvents.keys.first(where: { $0 != thread }) {
            // Recorded against the event about to be appended.
            find(.concurrentDelivery, .threadSafety,
                 "an event arrived on \(threadName(thread)) while \(threadName(other)) was still inside receive:"
                    + " deliveries to one subscriber must be serialised",
                 history.count)
        }
        deliveringEvents[thread, default: 0] += 1
    }

    /// Whether an event arriving now on `thread` comes after a cancel, and how; `nil` if not.
    ///
    /// After `cancel()` has returned on this thread, any event is late. After it returned on
    /// another thread only, one event may still have been on its way (decided before the cancel,
    /// delivered after — deliveries being serial, at most one): the first is allowed and marked,
    /// later ones are late. An event delivered from inside the cancel on the cancelling thread is late.
    private func lateness(_ thread: UInt, _ index: Int) -> String? {
        if cancelReturnedOn.contains(thread) { return "arrived after cancel() had returned" }
        // (A cancel that returned on this thread is in the set before this thread delivers again.)
        if !cancelReturnedOn.isEmpty || aCancelReturned.load(ordering: .acquiring) {
            if inFlightEventSeen { return "arrived after cancel() had returned (on another thread)" }
            inFlightEventSeen = true
            history[index] += "   (allowed: may have been on its way as cancel() returned on another thread)"
            return nil
        }
        if cancelling[thread] != nil { return "was delivered from inside cancel(), on the cancelling thread" }
        return nil
    }

    private func endDelivery(_ thread: UInt, subscription: Bool = false) {
        delivering[thread]! -= 1
        if delivering[thread] == 0 { delivering[thread] = nil }
        if subscription { return }
        deliveringEvents[thread]! -= 1
        if deliveringEvents[thread] == 0 { deliveringEvents[thread] = nil }
    }

    private func beginCall(_ what: String, _ thread: UInt, cancelOrdinal: Int?) -> Int {
        nextCallID += 1
        inFlight[nextCallID] = ("\(what) [\(threadName(thread))]", cancelOrdinal)
        return nextCallID
    }

    @discardableResult
    private func record(_ entry: String, _ thread: UInt) -> Int {
        state.generation += 1
        let depth = max(0, (delivering[thread] ?? 0) - (entry.hasPrefix("←") ? 1 : 0))
        var line = String(repeating: "  ", count: depth) + entry
        let number = threadNumber(thread)
        if number > 1 { line += "   [thread \(number)]" }
        history.append(line)
        return history.count - 1
    }

    private func threadNumber(_ thread: UInt) -> Int {
        if let number = threadNumbers[thread] { return number }
        let number = threadNumbers.count + 1
        threadNumbers[thread] = number
        return number
    }

    private func threadName(_ thread: UInt) -> String { "thread \(threadNumber(thread))" }

    private func find(_ check: ContractCheck, _ rule: PublisherContract.Rule, _ message: String, _ index: Int) {
        if let existing = findingIndex[check] {
            findings[existing].occurrences += 1
        } else {
            findingIndex[check] = findings.count
            findings.append(ContractFinding(check: check, rule: rule, message: message, eventIndex: index))
        }
    }

    /// Wakes whoever waits for an event. Called without the lock.
    private func wake() {
        let signals = lock.withLock { () -> [ContractSignal] in
            defer { waiters = [] }
            return waiters
        }
        for signal in signals { signal.set() }
    }

    // MARK: - Descriptions

    static func describe(_ value: Any) -> String {
        let text = type(of: value) is AnyClass && !(value is any CustomStringConvertible)
            ? _typeName(type(of: value), qualified: false)  // a class's default description is its qualified name
            : String(describing: value)
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }

    static func describe(demand: Subscribers.Demand) -> String {
        if demand == .unlimited { return ".unlimited" }
        if demand == .none { return ".none" }
        return ".max(\(demand.max ?? 0))"
    }
}
