import SluiceCore

// Operator mode: the operator under test is subscribed to publishers the kit makes and watches
// (probe upstreams), so the kit sees the operator from both sides.

extension PublisherContract {
    /// Verifies an operator applied to a publisher of `Int`s the kit makes and watches; throws a
    /// ``Report`` listing every violation if any rule breaks.
    ///
    /// ```swift
    /// try await PublisherContract.verifyOperator { upstream in upstream.map { $0 * 2 } }
    /// try await PublisherContract.verifyOperator(upstreamDemand: .unbounded) { upstream in upstream.reduce(0, +) }
    /// try await PublisherContract.verifyOperator { upstream in upstream.merge(with: upstream) }
    /// ```
    ///
    /// `upstream` is a ``ProbeUpstream``: each subscription to it is a fresh source of 1, 2, 3...
    /// that honours demand and ends as `upstream:` says (after 10 values by default). The operator
    /// may subscribe to it several times (`merge(with: upstream)`, `retry`, `zip`): each
    /// subscription is watched on its own, and shows in the history as "⇡ upstream 1", "⇡ upstream 2"...
    ///
    /// On top of what ``verify(scenarios:settle:timeout:valueLimit:drive:_:)`` checks on the
    /// operator's own subscription, the kit checks what the operator does upstream:
    ///
    /// | what the kit catches upstream | rule |
    /// | --- | --- |
    /// | `request(.none)` sent upstream (recorded, not forwarded: it would trap) | 5 |
    /// | more requested upstream than the subscriber was owed, where `upstreamDemand` bounds it | 2 |
    /// | the subscriber completed while an upstream is still live (neither completed nor cancelled) | 6 |
    /// | the subscriber cancelled, and an upstream is still live | 4 |
    ///
    /// - Parameters:
    ///   - scenarios: The demand patterns to run the operator's subscriber under (``Scenario/all``
    ///     by default).
    ///   - upstream: How each probe upstream ends: ``OperatorUpstream/finishing(after:)`` 10 values
    ///     by default, ``OperatorUpstream/failing(after:)`` to exercise `catch`, `retry` and
    ///     `replaceError`, ``OperatorUpstream/endless`` for one that only stops when cancelled.
    ///   - upstreamDemand: How much the operator may keep requested upstream:
    ///     ``UpstreamDemand/boundedByDownstream`` by default; ``UpstreamDemand/unbounded`` for
    ///     operators documented to request more (`reduce`, `collect`, `first`, `buffer`...).
    ///   - settle: How long the operator may stay quiet before the kit takes it that nothing more is
    ///     coming (10 ms by default).
    ///   - timeout: How long a call may go without returning, while nothing else happens, before it
    ///     is reported as a deadlock (1 s by default).
    ///   - valueLimit: The most values a scenario takes before the probe cancels (1000 by default).
    ///   - makeOperator: Applies the operator to the probe upstream; called once per subscription
    ///     the kit makes, on the scenario's thread.
    /// - Throws: A ``Report`` when any rule is broken.
    public static func verifyOperator<P: Publisher & SendableMetatype>(
        scenarios: [Scenario] = Scenario.all,
        upstream: OperatorUpstream = .finishing(after: 10),
        upstreamDemand: UpstreamDemand = .boundedByDownstream,
        settle: Duration = .milliseconds(10),
        timeout: Duration = .seconds(1),
        valueLimit: Int = 1_000,
        _ makeOperator: @escaping @Sendable (ProbeUpstream) -> P
    ) async throws(Report) {
        let report = await checkOperator(scenarios: scenarios, upstream: upstream, upstreamDemand: upstreamDemand,
                                         settle: settle, timeout: timeout, valueLimit: valueLimit, makeOperator)
        if !report.passed { throw report }
    }

    /// Like ``verifyOperator(scenarios:upstream:upstreamDemand:settle:timeout:valueLimit:_:)``, but
    /// returns the ``Report`` instead of throwing it.
    ///
    /// - Parameters: See ``verifyOperator(scenarios:upstream:upstreamDemand:settle:timeout:valueLimit:_:)``.
    /// - Returns: The report; ``Report/passed`` is `true` when no rule broke.
    public static func checkOperator<P: Publisher & SendableMetatype>(
        scenarios: [Scenario] = Scenario.all,
        upstream: OperatorUpstream = .finishing(after: 10),
        upstreamDemand: UpstreamDemand = .boundedByDownstream,
        settle: Duration = .milliseconds(10),
        timeout: Duration = .seconds(1),
        valueLimit: Int = 1_000,
        _ makeOperator: @escaping @Sendable (ProbeUpstream) -> P
    ) async -> Report {
        var configuration = ContractConfiguration(settle: settle, timeout: timeout, valueLimit: valueLimit)
        configuration.operatorMode = true
        configuration.upstreamDemand = upstreamDemand
        return await run(scenarios: scenarios, configuration: configuration) { observer in
            Fixture(makeOperator(ProbeUpstream(upstream, observer: observer)))
        }
    }

    /// How much an operator may keep requested from its upstream, in operator mode.
    ///
    /// Whenever the operator requests from a probe upstream (or returns demand from its
    /// `receive(_:)`), the kit compares what is then outstanding there — requested and not yet
    /// delivered — with what the operator's own subscriber is still owed. A one-to-one operator
    /// (`map`, `handleEvents`) or a filtering one (`filter`, `compactMap`, which ask for one more
    /// for each value they drop) never needs more.
    ///
    /// Several of Apple's operators are documented to ask for more, and Sluice follows Apple:
    /// the reducing operators (`reduce`, `collect()`, `count`, `min`/`max`, `last`, `first`,
    /// `contains`, `allSatisfy`, `output(at:)`...) request `.unlimited` whatever their subscriber
    /// asks; `buffer` prefetches; `flatMap` with unlimited `maxPublishers` requests `.unlimited`;
    /// `dropFirst(n)` asks for `n` more than it was asked. Verify those with ``unbounded`` or
    /// ``boundedByDownstream(plus:)``.
    public struct UpstreamDemand: Hashable, Sendable, CustomStringConvertible {
        enum Limit: Hashable, Sendable {
            case boundedByDownstream(Int)
            case unbounded
        }

        let limit: Limit

        /// Never more outstanding upstream than the subscriber is owed (the default).
        public static let boundedByDownstream = UpstreamDemand(limit: .boundedByDownstream(0))

        /// At most `extra` more outstanding upstream than the subscriber is owed (`dropFirst(n)`
        /// asks for `n` more; `collect(n)`-like operators for a multiple).
        public static func boundedByDownstream(plus extra: Int) -> UpstreamDemand {
            precondition(extra >= 0, "PublisherContract: the extra upstream demand must not be negative")
            return UpstreamDemand(limit: .boundedByDownstream(extra))
        }

        /// Any demand, `.unlimited` included: not checked.
        public static let unbounded = UpstreamDemand(limit: .unbounded)

        /// `"boundedByDownstream"`, `"boundedByDownstream(plus: 2)"` or `"unbounded"`.
        public var description: String {
            switch limit {
            case .boundedByDownstream(0): "boundedByDownstream"
            case .boundedByDownstream(let extra): "boundedByDownstream(plus: \(extra))"
            case .unbounded: "unbounded"
            }
        }
    }

    /// How each probe upstream ends, in operator mode.
    public struct OperatorUpstream: Hashable, Sendable, CustomStringConvertible {
        /// How many values (`nil`: no end).
        let count: Int?
        /// Whether it ends with `.failure(UpstreamError())` rather than `.finished`.
        let fails: Bool

        /// 1, 2... `count`, then `.finished`.
        public static func finishing(after count: Int) -> OperatorUpstream {
            precondition(count >= 0, "PublisherContract: an upstream cannot send a negative number of values")
            return OperatorUpstream(count: count, fails: false)
        }

        /// 1, 2... `count`, then `.failure(UpstreamError())`.
        public static func failing(after count: Int) -> OperatorUpstream {
            precondition(count >= 0, "PublisherContract: an upstream cannot send a negative number of values")
            return OperatorUpstream(count: count, fails: true)
        }

        /// 1, 2, 3... as long as there is demand, until cancelled.
        public static let endless = OperatorUpstream(count: nil, fails: false)

        /// `"finishing(after: 10)"`, `"failing(after: 3)"` or `"endless"`.
        public var description: String {
            guard let count else { return "endless" }
            return fails ? "failing(after: \(count))" : "finishing(after: \(count))"
        }
    }

    /// The failure of a probe upstream made with ``OperatorUpstream/failing(after:)``.
    public struct UpstreamError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Creates the error (to build a publisher of the same failure type in a test).
        public init() {}

        /// `"UpstreamError"`.
        public var description: String { "UpstreamError" }
    }

    /// The publisher of `Int`s the kit hands to the operator under test in operator mode.
    ///
    /// Each subscription is a fresh, correct source of 1, 2, 3... that delivers on the thread that
    /// requests, honours demand (requested and returned from `receive(_:)`), is re-entrant and
    /// thread-safe, and ends as ``OperatorUpstream`` says. It reports to the kit every subscription,
    /// request, cancel and completion; a `request(.none)` is reported under rule 5 and otherwise
    /// ignored, instead of trapping. Outside a verification it behaves the same and reports nowhere.
    public struct ProbeUpstream: Publisher {
        /// 1, 2, 3...
        public typealias Output = Int
        /// ``PublisherContract/UpstreamError``, sent by ``OperatorUpstream/failing(after:)`` only.
        public typealias Failure = UpstreamError

        let behavior: OperatorUpstream
        let link: ContractUpstreamLink

        init(_ behavior: OperatorUpstream, observer: any ContractUpstreamObserver) {
            self.behavior = behavior
            link = ContractUpstreamLink(observer)
        }

        /// Sends `subscriber` a fresh subscription of its own, numbered in the kit's history.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == UpstreamError {
            let observer = link.observer
            let number = observer?.upstreamSubscribed() ?? 0
            subscriber.receive(subscription: ContractUpstreamSubscription(
                downstream: subscriber, behavior: behavior, number: number, observer: observer))
        }
    }
}

/// What a probe upstream reports to (the scenario's probe).
protocol ContractUpstreamObserver: AnyObject, Sendable {
    func upstreamSubscribed() -> Int
    func upstreamSends(_ number: Int)
    func upstreamDemanded(_ number: Int, _ demand: Subscribers.Demand, returned: Bool)
    func upstreamZeroDemand(_ number: Int)
    func upstreamEnded(_ number: Int, _ status: ContractUpstreamStatus, _ text: String)
}

extension ContractProbe: ContractUpstreamObserver {}

/// A weak reference to the scenario's probe: the probe upstream must not keep it alive (the
/// release check would see a cycle that is the kit's own).
final class ContractUpstreamLink: @unchecked Sendable {
    // Written once, in init.
    private(set) weak var observer: (any ContractUpstreamObserver)?

    init(_ observer: any ContractUpstreamObserver) {
        self.observer = observer
    }
}

/// One subscription to a ``PublisherContract/ProbeUpstream``.
final class ContractUpstreamSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    @unchecked Sendable
where Downstream.Input == Int, Downstream.Failure == PublisherContract.UpstreamError {
    private struct State {
        var downstream: Downstream?
        var demand = Subscribers.Demand.none
        var next = 1
        var pumping = false
        var ended = false
    }

    private enum Step {
        case value(Int)
        case complete
        case stop
    }

    private let lock = Lock()
    private var state: State  // guarded by `lock`
    private let behavior: PublisherContract.OperatorUpstream
    private let number: Int
    private weak var observer: (any ContractUpstreamObserver)?

    init(downstream: Downstream, behavior: PublisherContract.OperatorUpstream, number: Int,
         observer: (any ContractUpstreamObserver)?)
    {
        state = State(downstream: downstream)
        self.behavior = behavior
        self.number = number
        self.observer = observer
    }

    /// `"ProbeUpstream"`.
    var description: String { "ProbeUpstream" }

    func request(_ demand: Subscribers.Demand) {
        guard demand != .none else {
            observer?.upstreamZeroDemand(number)
            return
        }
        let (live, downstream) = lock.withLock { () -> (Bool, Downstream?) in
            guard !state.ended else { return (false, nil) }
            state.demand += demand
            guard !state.pumping else { return (true, nil) }
            state.pumping = true
            return (true, state.downstream)
        }
        if live { observer?.upstreamDemanded(number, demand, returned: false) }
        if let downstream { pump(downstream) }
    }

    /// Delivers while there is demand; one thread at a time (`pumping`), so a request made from
    /// inside `receive(_:)` only adds demand for this loop.
    private func pump(_ downstream: Downstream) {
        while true {
            let step = lock.withLock { () -> Step in
                if state.ended {
                    state.pumping = false
                    return .stop
                }
                if let count = behavior.count, state.next > count {
                    state.ended = true
                    state.pumping = false
                    state.downstream = nil
                    return .complete
                }
                guard state.demand > 0 else {
                    state.pumping = false
                    return .stop
                }
                state.demand -= 1
                state.next += 1
                return .value(state.next - 1)
            }
            switch step {
            case .stop:
                return
            case .complete:
                observer?.upstreamEnded(number, .completed, behavior.fails ? "sent failure(UpstreamError)" : "sent finished")
                downstream.receive(completion: behavior.fails ? .failure(PublisherContract.UpstreamError()) : .finished)
                return
            case .value(let value):
                observer?.upstreamSends(number)
                let more = downstream.receive(value)
                guard more != .none else { continue }
                let live = lock.withLock { () -> Bool in
                    guard !state.ended else { return false }
                    state.demand += more
                    return true
                }
                if live { observer?.upstreamDemanded(number, more, returned: true) }
            }
        }
    }

    func cancel() {
        let released = lock.withLock { () -> Downstream?? in
            guard !state.ended else { return nil }
            state.ended = true
            defer { state.downstream = nil }
            return .some(state.downstream)
        }
        guard let released else { return }
        _ = released
        observer?.upstreamEnded(number, .cancelled, "cancelled by the operator")
    }
}
