import SluiceCore
import SluiceTesting
import Testing

/// Operator mode: the kit subscribes the operator to probe upstreams it makes, and sees what the
/// operator does upstream. Flawed operators (Support/FlawedOperators.swift) are flagged under the
/// rule they break, and nothing else; correct ones pass.
@Suite struct PublisherContractOperatorTests {
    @Test func aCorrectOperatorPasses() async throws {
        try await PublisherContract.verifyOperator { upstream in upstream.map { $0 * 2 } }
    }

    @Test func theHistoryShowsWhatTheOperatorDidUpstream() async {
        let report = await PublisherContract.checkOperator(scenarios: [.oneAtATime]) { upstream in
            upstream.flawed(.requestsOneLessUpstream)
        }
        let history = report.violations.first?.history ?? []
        #expect(history.first == "⇡ upstream 1: subscribed by the operator", "\(report)")
        // (Indented where it happened inside a call the probe made.)
        #expect(history.contains { $0.hasSuffix("⇡ upstream 1: request(.none)") }, "\(report)")
        #expect(history.last == "⇡ upstream 1: cancelled by the operator", "\(report)")
    }

    @Test func requestingZeroDemandUpstreamBreaksRule5InsteadOfTrapping() async {
        let report = await PublisherContract.checkOperator { upstream in upstream.flawed(.requestsOneLessUpstream) }
        #expect(report.brokenRules == [.zeroDemand], "\(report)")
        // Wherever the subscriber asks for one value at a time.
        #expect(report.scenarios(breaking: .zeroDemand).contains(.oneAtATime))
        #expect(!report.scenarios(breaking: .zeroDemand).contains(.unlimited))
        #expect(report.violations.first?.message.hasPrefix("the operator called request(.none) on upstream 1") == true)
    }

    @Test func finishingEarlyWithoutCancellingUpstreamBreaksRule6() async {
        let report = await PublisherContract.checkOperator(scenarios: Scenario.singleThreaded) { upstream in
            upstream.flawed(.finishesEarlyWithoutCancellingUpstream)
        }
        #expect(report.brokenRules == [.earlyFinish], "\(report)")
        // Under limited demand the upstream has values left when the operator finishes; under
        // unlimited demand it has sent all 10 and finished by then.
        #expect(report.scenarios(breaking: .earlyFinish).contains(.oneAtATime))
        #expect(!report.scenarios(breaking: .earlyFinish).contains(.unlimited))
        #expect(report.violations.first?.message.hasPrefix(
            "the operator completed its subscriber while upstream 1 was still live") == true)
    }

    @Test func anOperatorThatFinishesEarlyPassesOverAnEndlessUpstream() async {
        let report = await PublisherContract.checkOperator(upstream: .endless) { $0.prefix(3) }
        #expect(report.passed, "\(report)")
    }

    @Test func notForwardingCancelBreaksRule4() async {
        let report = await PublisherContract.checkOperator(scenarios: Scenario.singleThreaded) { upstream in
            upstream.flawed(.doesNotForwardCancel)
        }
        #expect(report.brokenRules == [.release], "\(report)")
        #expect(report.scenarios(breaking: .release).contains(.cancelMidStream))
        #expect(report.violations.first?.message
            == "upstream 1 was still live after the subscriber cancelled: an operator's cancel() must cancel its"
                + " upstream subscriptions")
    }

    @Test func requestingMoreUpstreamThanAskedBreaksRule2WhenBounded() async {
        let report = await PublisherContract.checkOperator(scenarios: Scenario.singleThreaded) { upstream in
            upstream.flawed(.requestsUnlimitedAndDrops)
        }
        #expect(report.brokenRules == [.demand], "\(report)")
        #expect(report.scenarios(breaking: .demand).contains(.oneAtATime))
        #expect(!report.scenarios(breaking: .demand).contains(.unlimited))
        let violation = report.violations.first { $0.scenario == .oneAtATime }
        #expect(violation?.message.hasPrefix(
            "the operator left .unlimited requested from upstream 1 while its subscriber was owed only 1 value") == true)
    }

    @Test func theSameOperatorPassesWhereUnboundedUpstreamDemandIsItsDocumentedBehaviour() async {
        let report = await PublisherContract.checkOperator(upstreamDemand: .unbounded) { upstream in
            upstream.flawed(.requestsUnlimitedAndDrops)
        }
        #expect(report.passed, "\(report)")
    }

    @Test func extraUpstreamDemandCanBeAllowed() async {
        // dropFirst(2) asks upstream for 2 more than it was asked.
        let bounded = await PublisherContract.checkOperator(scenarios: [.oneAtATime]) { $0.dropFirst(2) }
        #expect(bounded.brokenRules == [.demand], "\(bounded)")
        // (single-threaded: Apple's Drop, which Sluice's follows, leaves an upstream subscription
        // that arrives after a cross-thread cancel running; see BuiltInOperatorsContractTests)
        let allowed = await PublisherContract.checkOperator(
            scenarios: PublisherContract.Scenario.singleThreaded, upstreamDemand: .boundedByDownstream(plus: 2)
        ) {
            $0.dropFirst(2)
        }
        #expect(allowed.passed, "\(allowed)")
    }

    @Test func anOperatorMaySubscribeSeveralTimesToTheUpstream() async {
        let report = await PublisherContract.checkOperator(scenarios: [.unlimited]) { upstream in
            upstream.merge(with: upstream)
        }
        #expect(report.passed, "\(report)")
        let failing = await PublisherContract.checkOperator(scenarios: [.cancelMidStream]) { upstream in
            upstream.flawed(.doesNotForwardCancel).merge(with: upstream)
        }
        #expect(failing.violations.first?.message.hasPrefix("upstream 1 was still live") == true, "\(failing)")
    }

    @Test func aFailingUpstreamExercisesErrorHandling() async {
        let report = await PublisherContract.checkOperator(upstream: .failing(after: 3)) { upstream in
            upstream.retry(2).catch { _ in Just(0).setFailureType(to: PublisherContract.UpstreamError.self) }
        }
        #expect(report.passed, "\(report)")
    }

    @Test func optionsDescribeThemselves() {
        #expect(PublisherContract.UpstreamDemand.boundedByDownstream.description == "boundedByDownstream")
        #expect(PublisherContract.UpstreamDemand.boundedByDownstream(plus: 2).description
            == "boundedByDownstream(plus: 2)")
        #expect(PublisherContract.UpstreamDemand.unbounded.description == "unbounded")
        #expect(PublisherContract.OperatorUpstream.finishing(after: 10).description == "finishing(after: 10)")
        #expect(PublisherContract.OperatorUpstream.failing(after: 3).description == "failing(after: 3)")
        #expect(PublisherContract.OperatorUpstream.endless.description == "endless")
    }

    @Test func theProbeUpstreamWorksOutsideAVerification() async throws {
        // Handed out by the kit only; captured here through a check, then used on its own.
        let captured = ProbeSlot()
        _ = await PublisherContract.checkOperator(scenarios: [.unlimited]) { upstream in
            captured.set(upstream)
            return upstream
        }
        let upstream = try #require(captured.value)
        let subscriber = TestSubscriber<Int, PublisherContract.UpstreamError>(initialDemand: .max(3))
        upstream.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.unlimited)
        #expect(subscriber.values == Array(1...10))
        #expect(subscriber.completion == .finished)
    }
}

/// Keeps the probe upstream a factory was handed.
private final class ProbeSlot: Sendable {
    private let slot = Protected<PublisherContract.ProbeUpstream?>(nil)
    func set(_ upstream: PublisherContract.ProbeUpstream) { slot.withLock { $0 = upstream } }
    var value: PublisherContract.ProbeUpstream? { slot.withLock { $0 } }
}
