import SluiceCore
import SluiceTesting
import Testing

/// Every built-in operator keeps the contract in operator mode: subscribed to the kit's probe
/// upstreams, it is checked from both sides — its subscription under every scenario, and what it
/// does upstream (no zero demand, upstream cancelled when it finishes early or is cancelled, no
/// more requested upstream than owed unless Apple documents otherwise).
///
/// The `upstreamDemand` column follows Apple's documented behaviour: the reducing operators
/// (`first`, `last`, `reduce`, `collect`, `contains`, `allSatisfy`, `output(at:)`, `count`,
/// `min`/`max`, `ignoreOutput`) request `.unlimited` whatever their subscriber asks, as do
/// `flatMap` with unlimited `maxPublishers`, `switchToLatest`, `share` and `buffer`; `merge` and
/// `combineLatest` ask each of their upstreams for what their subscriber asked;
/// `dropFirst(n)` asks for `n` more, `flatMap(maxPublishers: .max(1))` for one inner publisher
/// ahead of demand.
@Suite struct BuiltInOperatorsContractTests {
    typealias Demand = PublisherContract.UpstreamDemand
    typealias Upstream = PublisherContract.ProbeUpstream
    typealias UpstreamError = PublisherContract.UpstreamError

    /// One operator to verify, named for the test report.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let check: @Sendable () async -> PublisherContract.Report
        /// Rules Apple's own operator departs from, so ours does too (Conformance/README.md).
        let applesExceptions: Set<PublisherContract.Rule>
        /// The scenarios run: all of them, but for an operator that traps, as Apple's does, in some.
        let scenarios: [PublisherContract.Scenario]

        var testDescription: String { name }

        init<P: Publisher & SendableMetatype>(
            _ name: String, upstream: PublisherContract.OperatorUpstream = .finishing(after: 10),
            upstreamDemand: Demand = .boundedByDownstream, applesExceptions: Set<PublisherContract.Rule> = [],
            scenarios: [PublisherContract.Scenario] = PublisherContract.Scenario.all,
            _ apply: @escaping @Sendable (Upstream) -> P
        ) {
            self.name = name
            self.applesExceptions = applesExceptions
            self.scenarios = scenarios
            check = {
                await PublisherContract.checkOperator(
                    scenarios: scenarios, upstream: upstream, upstreamDemand: upstreamDemand, apply)
            }
        }
    }

    static let cases: [Case] = [
        // Mapping, filtering
        Case("map") { $0.map { $0 * 2 } },
        Case("map(keyPath)") { $0.map(\.bitWidth) },
        Case("tryMap") { $0.tryMap { $0 * 2 } },
        Case("tryMap, throwing") { $0.tryMap { value -> Int in if value == 3 { throw UpstreamError() }; return value } },
        Case("mapError") { $0.mapError { $0 } },
        Case("filter") { $0.filter { $0.isMultiple(of: 2) } },
        Case("tryFilter") { $0.tryFilter { $0.isMultiple(of: 2) } },
        Case("compactMap") { $0.compactMap { $0.isMultiple(of: 3) ? nil : $0 } },
        Case("scan") { $0.scan(0, +) },
        Case("tryScan") { $0.tryScan(0, +) },
        Case("removeDuplicates") { $0.map { $0 / 2 }.removeDuplicates() },
        Case("tryRemoveDuplicates") { $0.map { $0 / 2 }.tryRemoveDuplicates { $0 == $1 } },
        Case("tryCompactMap") { $0.tryCompactMap { $0.isMultiple(of: 3) ? nil : $0 } },
        Case("replaceNil") { $0.map { Optional($0) }.replaceNil(with: 0) },
        Case("handleEvents") { $0.handleEvents(receiveOutput: { _ in }, receiveCancel: {}) },
        Case("assertNoFailure") { $0.assertNoFailure() },
        Case("eraseToAnyPublisher") { $0.map { $0 + 1 }.eraseToAnyPublisher() },
        // Selecting, dropping
        Case("prefix") { $0.prefix(3) },
        Case("prefix, over an endless upstream", upstream: .endless) { $0.prefix(3) },
        Case("prefix(while:)") { $0.prefix { $0 < 4 } },
        // Apple's Drop hands its subscriber the subscription before subscribing upstream, and
        // leaves alone an upstream subscription that arrives after a cancel
        // (DropTests/testDropCancelBeforeSubscription): a cancel from another thread in between
        // leaves that upstream running (rule 4).
        Case("dropFirst", upstreamDemand: .boundedByDownstream(plus: 2), applesExceptions: [.release]) { $0.dropFirst(2) },
        Case("drop(while:)") { $0.drop { $0 < 4 } },
        Case("tryPrefix(while:)") { $0.tryPrefix { $0 < 4 } },
        Case("tryDrop(while:)") { $0.tryDrop { $0 < 4 } },
        // (The trigger is asked for a value whatever the subscriber asks; here dropFirst makes it 21.)
        Case("prefix(untilOutputFrom:)", upstreamDemand: .unbounded) { upstream in
            upstream.prefix(untilOutputFrom: upstream.dropFirst(20))
        },
        Case("first", upstreamDemand: .unbounded) { $0.first() },
        Case("first, over an endless upstream", upstream: .endless, upstreamDemand: .unbounded) { $0.first() },
        Case("first(where:)", upstreamDemand: .unbounded) { $0.first { $0 > 3 } },
        Case("last", upstreamDemand: .unbounded) { $0.last() },
        Case("last(where:)", upstreamDemand: .unbounded) { $0.last { $0 < 4 } },
        Case("output(at:)", upstreamDemand: .unbounded) { $0.output(at: 3) },
        Case("output(in:)", upstreamDemand: .unbounded) { $0.output(in: 2...4) },
        // Reducing, matching
        Case("reduce", upstreamDemand: .unbounded) { $0.reduce(0, +) },
        Case("tryReduce", upstreamDemand: .unbounded) { $0.tryReduce(0, +) },
        Case("collect", upstreamDemand: .unbounded) { $0.collect() },
        Case("collect(count)", upstreamDemand: .unbounded) { $0.collect(3) },
        Case("count", upstreamDemand: .unbounded) { $0.count() },
        Case("min", upstreamDemand: .unbounded) { $0.min() },
        Case("max", upstreamDemand: .unbounded) { $0.max() },
        Case("ignoreOutput", upstreamDemand: .unbounded) { $0.ignoreOutput() },
        Case("contains", upstreamDemand: .unbounded) { $0.contains(4) },
        Case("contains(where:)", upstreamDemand: .unbounded) { $0.contains { $0 > 4 } },
        Case("allSatisfy", upstreamDemand: .unbounded) { $0.allSatisfy { $0 < 5 } },
        Case("tryAllSatisfy", upstreamDemand: .unbounded) { $0.tryAllSatisfy { $0 < 5 } },
        Case("tryContains(where:)", upstreamDemand: .unbounded) { $0.tryContains { $0 > 4 } },
        // Apple's replaceEmpty asks its upstream for .unlimited and passes every value on, whatever
        // its subscriber asked for (rule 2).
        Case("replaceEmpty", upstreamDemand: .unbounded, applesExceptions: [.demand]) { $0.replaceEmpty(with: 0) },
        Case("replaceEmpty, over an empty upstream", upstream: .finishing(after: 0), upstreamDemand: .unbounded,
             applesExceptions: [.demand]) { $0.replaceEmpty(with: 0) },
        // Errors
        Case("replaceError", upstream: .failing(after: 3)) { $0.replaceError(with: 0) },
        Case("catch", upstream: .failing(after: 3)) {
            $0.catch { _ in [7, 8].publisher.setFailureType(to: UpstreamError.self) }
        },
        Case("retry", upstream: .failing(after: 3)) { $0.retry(2) },
        Case("catch, resubscribing to the upstream", upstream: .failing(after: 3)) { upstream in
            upstream.catch { _ in upstream }
        },
        // Combining
        // (merge and combineLatest ask every upstream for what their subscriber asked, as Apple's do.)
        Case("merge(with:)", upstreamDemand: .unbounded) { $0.merge(with: $0) },
        Case("zip") { $0.zip($0) },
        Case("combineLatest", upstreamDemand: .unbounded) { $0.combineLatest($0) },
        Case("append") { $0.append(11, 12) },
        Case("prepend") { $0.prepend(-1, 0) },
        // Flattening
        Case("flatMap", upstreamDemand: .unbounded) {
            $0.flatMap { [$0, $0 * 10].publisher.setFailureType(to: UpstreamError.self) }
        },
        Case("flatMap(maxPublishers: .max(1))", upstreamDemand: .boundedByDownstream(plus: 1)) {
            $0.flatMap(maxPublishers: .max(1)) { [$0, $0 * 10].publisher.setFailureType(to: UpstreamError.self) }
        },
        Case("switchToLatest", upstreamDemand: .unbounded) {
            $0.map { [$0, $0 * 10].publisher.setFailureType(to: UpstreamError.self) }.switchToLatest()
        },
        // Publishers of probe upstreams: the inner subscriptions are watched too (each switched-away
        // inner must be cancelled; each inner is asked only for what is owed).
        Case("switchToLatest over probe upstreams", upstreamDemand: .unbounded) { upstream in
            upstream.prefix(3).map { _ in upstream }.switchToLatest()
        },
        Case("flatMap over probe upstreams", upstreamDemand: .unbounded) { upstream in
            upstream.prefix(3).flatMap { _ in upstream }
        },
        // Buffering, multicasting, schedulers
        Case("buffer, prefetching", upstreamDemand: .unbounded) {
            $0.buffer(size: 4, prefetch: .keepFull, whenFull: .dropOldest)
        },
        Case("buffer, by request", upstreamDemand: .unbounded) {
            $0.buffer(size: 4, prefetch: .byRequest, whenFull: .dropNewest)
        },
        Case("share", upstreamDemand: .unbounded) { $0.share() },
        Case("receive(on: ImmediateScheduler)") { $0.receive(on: ImmediateScheduler.shared) },
        // Apple's subscribe(on:) traps on a request made from inside the upstream's request(_:) on the
        // same thread — with ImmediateScheduler, every request made from receive(_:) of a value the
        // probe upstream sends from inside request(_:): the two scenarios doing that are left out.
        Case("subscribe(on: ImmediateScheduler)", scenarios: SubscribeOnTests.scenariosWithoutRecursiveRequests) {
            $0.subscribe(on: ImmediateScheduler.shared)
        },
    ]

    @Test(arguments: cases)
    func keepsTheContract(_ operator: Case) async {
        let report = await `operator`.check()
        let broken = Set(report.violations.map(\.rule))
        #expect(broken.isSubset(of: `operator`.applesExceptions), "\(report)")
        #expect(report.scenarios == `operator`.scenarios)
    }
}
