import SluiceCore

/// Checks that a publisher keeps the Publisher/Subscription contract, under a battery of demand
/// patterns, and reports every rule it breaks.
///
/// ```swift
/// import Testing
/// import Sluice
/// import SluiceTesting
///
/// @Test func pepBoysKeepsTheContract() async throws {
///     try await PublisherContract.verify { PepBoys() }
/// }
/// ```
///
/// For each ``Scenario`` the kit asks the factory for a fresh publisher, subscribes a probe
/// subscriber that follows the scenario's demand pattern, drives the publisher if it needs
/// driving, waits until it completes or goes quiet, and ends by cancelling if it has not
/// completed. The probe records every event it sees and every call it makes, and checks them as
/// they happen:
///
/// | what the kit catches | rule |
/// | --- | --- |
/// | a value or completion before `receive(subscription:)`; a second subscription; no subscription at all | 1 |
/// | more values than demanded (requests plus demand returned from `receive(_:)`) — including returned demand turned into `.unlimited` (``Scenario/returnedDemandOnce``) | 2 |
/// | a second completion; a value after the completion; a value or completion after `cancel()` — including a cancel made on another thread mid-emission and then lost (``Scenario/cancelFromAnotherThread``) | 3 |
/// | the subscriber still alive after cancel or completion once the kit dropped its references; a repeated `cancel()` that does not return | 4 |
/// | a call that does not return — a deadlock on `request`/`cancel` made from inside `receive` | 7 |
/// | **order**: values that come in another order under re-entrant demand than under the same demand made up front (``Scenario/order``) | 7 |
/// | deliveries on two threads at once; a hang under concurrent `request`/`cancel` | 8 |
///
/// In operator mode (``verifyOperator(scenarios:upstream:upstreamDemand:settle:timeout:valueLimit:_:)``)
/// the kit also watches what the operator does to its upstream:
///
/// | what the kit catches upstream, in operator mode | rule |
/// | --- | --- |
/// | more outstanding upstream than the subscriber is owed (where ``UpstreamDemand`` bounds it) | 2 |
/// | a live upstream once the subscriber cancelled | 4 |
/// | `request(.none)` sent upstream — recorded by the probe upstream instead of trapping | 5 |
/// | a live upstream once the operator completed its subscriber (an early finish that did not cancel upstream) | 6 |
///
/// Every violation names its rule, the scenario, and the recorded history that shows it.
///
/// Two things that look late are allowed, because no publisher can prevent them without holding
/// a lock while it calls out: one event that arrives after a `cancel()` made on *another* thread
/// has returned (it was on its way; deliveries being serial, there can be only one), and a value
/// that arrives on another thread while `receive(subscription:)` is still running after the
/// subscriber has requested (as `receive(on:)` does). The history marks the first.
///
/// The probe keeps its subscription after cancel and completion — as a subscriber that stores
/// it in a property does — so a subscription that still holds its subscriber forms a cycle the
/// release check sees. The fixture stays alive during that check, so a publisher that keeps
/// subscribers it no longer serves is caught too.
///
/// ## Publishers that need driving
///
/// Subjects, controls and other sources emit only when something makes them. Pass `drive:`, which
/// the kit calls once per scenario, after subscribing:
///
/// ```swift
/// try await PublisherContract.verify(drive: { subject in
///     subject.send(1)
///     subject.send(2)
///     subject.send(completion: .finished)
/// }) {
///     PassthroughSubject<Int, Never>()
/// }
/// ```
///
/// When what makes it emit is not the publisher itself (a control, the subject at the head of a
/// pipeline), return a ``Fixture`` from the factory instead.
///
/// ## Asynchronous and infinite publishers
///
/// The kit waits for events as long as they keep coming: a scenario is over when the publisher
/// completes, or when nothing has happened for `settle`. Raise `settle` above the longest gap
/// between two events of an asynchronous publisher. A publisher that never completes is fine:
/// each scenario then ends by cancelling (and the probe cancels by itself after `valueLimit`
/// values). At the end of a scenario, the kit waits for the probe subscriber to be released: up to
/// `settle` for a publisher that delivered only on the kit's threads, up to `timeout` for one that
/// delivered on threads of its own (its teardown may wait for those to be scheduled).
///
/// ## Deadlocks and crashes
///
/// The kit calls into the publisher only from threads of its own. A call that does not return
/// for `timeout` while nothing else happens is reported as a deadlock; that thread is left behind
/// (it cannot be stopped), and the verification goes on with the next scenario.
///
/// A crash — a failed precondition, a data race that traps — ends the test process; it cannot be
/// reported in-process. Catch it with an exit test (Swift Testing, Swift 6.2 and later, on macOS,
/// Linux and Windows), which runs the body in a child process:
///
/// ```swift
/// @Test func pepBoysSurvivesTheContract() async {
///     await #expect(processExitsWith: .success) {
///         try await PublisherContract.verify { PepBoys() }
///     }
/// }
/// ```
///
/// Rule 5 (requesting `.none` traps) is checked the same way, with ``requestZeroDemand(from:)``.
///
/// One built-in publisher is exempt from rule 2: `ObservableObjectPublisher`, which, as Apple's,
/// sends every signal to every subscriber whatever it requested.
///
/// ## Operators
///
/// An operator is verified over an upstream the kit makes and watches, a ``ProbeUpstream`` of
/// `Int`s:
///
/// ```swift
/// try await PublisherContract.verifyOperator { upstream in upstream.map { $0 * 2 } }
/// try await PublisherContract.verifyOperator(upstreamDemand: .unbounded) { upstream in upstream.reduce(0, +) }
/// try await PublisherContract.verifyOperator(upstream: .failing(after: 3)) { upstream in upstream.retry(1) }
/// ```
///
/// The history then shows the upstream's side too ("⇡ upstream 1: request(.max(1))"). Operators
/// that Apple documents as asking upstream for more than they were asked (the reducing
/// operators, `buffer`, `flatMap`, `dropFirst(n)`...) are verified with an ``UpstreamDemand``
/// that allows it.
///
/// ## What the kit does not see
///
/// It checks the rules, not the values: a publisher that loses values, or sends wrong ones,
/// while keeping the rules passes (assert the values with ``TestSubscriber``). The order check
/// compares only the values both runs delivered, and only for publishers that deliver on the
/// kit's threads and give the same values run after run; a publisher whose values legitimately
/// depend on how demand is split is compared on order alone for that reason. Rule 6 is seen in
/// operator mode only, and only for the upstreams the kit made (not for an inner publisher the
/// operator's closure returns). The check on upstream demand is per upstream: operators that ask
/// each of several upstreams for their subscriber's demand (`merge`, `combineLatest`) need
/// ``UpstreamDemand/unbounded``.
///
/// Races are caught when they happen: the concurrent scenario makes overlapping deliveries
/// (rule 8) likely, not certain. ``Scenario/cancelFromAnotherThread`` aims its cancels at the
/// moment a value's `receive` returns and learns the offset, so a cancel lost in the few
/// nanoseconds between an emission loop's read and store of its state is caught within tens of
/// trials, loaded machine or not — but only by a trial that lands in the window, for a publisher
/// that delivers on the kit's threads (one that delivers on threads of its own gets 2 trials at a
/// random delay). A data race inside the publisher shows only if it corrupts what the probe sees,
/// or crashes.
///
/// ## Topics
///
/// ### Verifying
/// - ``verify(scenarios:settle:timeout:valueLimit:drive:_:)``
/// - ``verify(scenarios:settle:timeout:valueLimit:_:)``
/// - ``check(scenarios:settle:timeout:valueLimit:drive:_:)``
/// - ``check(scenarios:settle:timeout:valueLimit:_:)``
/// - ``requestZeroDemand(from:)``
///
/// ### Verifying an operator
/// - ``verifyOperator(scenarios:upstream:upstreamDemand:settle:timeout:valueLimit:_:)``
/// - ``checkOperator(scenarios:upstream:upstreamDemand:settle:timeout:valueLimit:_:)``
/// - ``ProbeUpstream``
/// - ``OperatorUpstream``
/// - ``UpstreamDemand``
/// - ``UpstreamError``
///
/// ### Describing the test
/// - ``Scenario``
/// - ``Fixture``
///
/// ### Reading the results
/// - ``Report``
/// - ``Violation``
/// - ``Rule``
public enum PublisherContract {
    /// Verifies the publishers `makePublisher` makes, one per scenario; throws a ``Report`` listing
    /// every violation if any rule breaks.
    ///
    /// ```swift
    /// try await PublisherContract.verify { PepBoys() }
    /// ```
    ///
    /// - Parameters:
    ///   - scenarios: The demand patterns to run, in order. ``Scenario/all`` by default;
    ///     ``Scenario/singleThreaded`` leaves out the two that call in from several threads; leave
    ///     out ``Scenario/order`` for a publisher whose values legitimately differ in order with
    ///     the way demand is made.
    ///   - settle: How long a publisher may stay quiet before the kit takes it that nothing more is
    ///     coming (for now). Raise it above the longest gap between events of an asynchronous
    ///     publisher. 10 ms by default: enough for synchronous publishers, which never wait.
    ///   - timeout: How long a call into the publisher may go without returning, while nothing else
    ///     happens, before it is reported as a deadlock. 1 s by default.
    ///   - valueLimit: The most values a scenario takes: the probe cancels (from inside
    ///     `receive(_:)`) once it has received this many. 1000 by default.
    ///   - drive: Called once per scenario with the publisher, after the probe has subscribed and
    ///     made its initial request, to make it emit (send values and a completion to a subject).
    ///     `nil` (the default) for publishers that emit by themselves.
    ///   - makePublisher: Makes a fresh publisher; called once per scenario, on the scenario's
    ///     thread.
    /// - Throws: A ``Report`` when any rule is broken.
    public static func verify<P: Publisher & SendableMetatype>(
        scenarios: [Scenario] = Scenario.all,
        settle: Duration = .milliseconds(10),
        timeout: Duration = .seconds(1),
        valueLimit: Int = 1_000,
        drive: (@Sendable (P) -> Void)? = nil,
        _ makePublisher: @escaping @Sendable () -> P
    ) async throws(Report) {
        let report = await check(scenarios: scenarios, settle: settle, timeout: timeout, valueLimit: valueLimit,
                                 drive: drive, makePublisher)
        if !report.passed { throw report }
    }

    /// Verifies the publishers of the fixtures `makeFixture` makes, one per scenario, driving each
    /// with its fixture's `drive`; throws a ``Report`` listing every violation if any rule breaks.
    ///
    /// ```swift
    /// try await PublisherContract.verify {
    ///     let subject = PassthroughSubject<Int, Never>()
    ///     return PublisherContract.Fixture(subject.map { $0 * 2 }) {
    ///         subject.send(1)
    ///         subject.send(completion: .finished)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - scenarios: The demand patterns to run, in order (``Scenario/all`` by default).
    ///   - settle: How long a publisher may stay quiet before the kit takes it that nothing more is
    ///     coming (10 ms by default).
    ///   - timeout: How long a call may go without returning, while nothing else happens, before it
    ///     is reported as a deadlock (1 s by default).
    ///   - valueLimit: The most values a scenario takes before the probe cancels (1000 by default).
    ///   - makeFixture: Makes a fresh fixture; called once per scenario, on the scenario's thread.
    /// - Throws: A ``Report`` when any rule is broken.
    public static func verify<P: Publisher & SendableMetatype>(
        scenarios: [Scenario] = Scenario.all,
        settle: Duration = .milliseconds(10),
        timeout: Duration = .seconds(1),
        valueLimit: Int = 1_000,
        _ makeFixture: @escaping @Sendable () -> Fixture<P>
    ) async throws(Report) {
        let report = await check(scenarios: scenarios, settle: settle, timeout: timeout, valueLimit: valueLimit,
                                 makeFixture)
        if !report.passed { throw report }
    }

    /// Like ``verify(scenarios:settle:timeout:valueLimit:drive:_:)``, but returns the ``Report``
    /// instead of throwing it — to inspect which rules broke, as the kit's own tests do.
    ///
    /// - Parameters: See ``verify(scenarios:settle:timeout:valueLimit:drive:_:)``.
    /// - Returns: The report; ``Report/passed`` is `true` when no rule broke.
    public static func check<P: Publisher & SendableMetatype>(
        scenarios: [Scenario] = Scenario.all,
        settle: Duration = .milliseconds(10),
        timeout: Duration = .seconds(1),
        valueLimit: Int = 1_000,
        drive: (@Sendable (P) -> Void)? = nil,
        _ makePublisher: @escaping @Sendable () -> P
    ) async -> Report {
        await check(scenarios: scenarios, settle: settle, timeout: timeout, valueLimit: valueLimit) { () -> Fixture<P> in
            let publisher = makePublisher()
            guard let drive else { return Fixture(publisher) }
            return Fixture(publisher) { drive(publisher) }
        }
    }

    /// Like ``verify(scenarios:settle:timeout:valueLimit:_:)``, but returns the ``Report``
    /// instead of throwing it.
    ///
    /// - Parameters: See ``verify(scenarios:settle:timeout:valueLimit:_:)``.
    /// - Returns: The report; ``Report/passed`` is `true` when no rule broke.
    public static func check<P: Publisher & SendableMetatype>(
        scenarios: [Scenario] = Scenario.all,
        settle: Duration = .milliseconds(10),
        timeout: Duration = .seconds(1),
        valueLimit: Int = 1_000,
        _ makeFixture: @escaping @Sendable () -> Fixture<P>
    ) async -> Report {
        let configuration = ContractConfiguration(settle: settle, timeout: timeout, valueLimit: valueLimit)
        return await run(scenarios: scenarios, configuration: configuration) { _ in makeFixture() }
    }

    /// Runs every scenario with `configuration` and gathers the violations.
    static func run<P: Publisher & SendableMetatype>(
        scenarios: [Scenario], configuration: ContractConfiguration,
        _ makeFixture: @escaping @Sendable (any ContractUpstreamObserver) -> Fixture<P>
    ) async -> Report {
        precondition(configuration.valueLimit > 0, "PublisherContract: valueLimit must be at least 1")
        precondition(configuration.settle > .zero && configuration.timeout > .zero,
                     "PublisherContract: settle and timeout must be positive")
        var violations: [Violation] = []
        for scenario in scenarios {
            let runner = ContractScenarioRunner(scenario: scenario, configuration: configuration, makeFixture: makeFixture)
            violations += await runner.run()
        }
        return Report(publisher: String(describing: P.self), scenarios: scenarios, violations: violations)
    }

    /// Subscribes to a fresh publisher and requests `.none` — which rule 5 says must stop the
    /// process with a precondition. Call it inside an exit test:
    ///
    /// ```swift
    /// @Test func zeroDemandTraps() async {
    ///     await #expect(processExitsWith: .failure) {
    ///         PublisherContract.requestZeroDemand { PepBoys() }
    ///     }
    /// }
    /// ```
    ///
    /// If the publisher has not sent a subscription synchronously, nothing is requested.
    public static func requestZeroDemand<P: Publisher>(from makePublisher: () -> P) {
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        makePublisher().subscribe(subscriber)
        subscriber.subscription?.request(.none)
    }
}
