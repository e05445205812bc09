import SluiceCore
import SluiceTesting
import Testing

/// Flaws the first scenarios could not see, each with a broken publisher of its own, flagged
/// under the rule it breaks by the scenario made for it.
@Suite struct PublisherContractBlindSpotTests {
    /// Every scenario but the one made for a flaw, and the concurrent ones (which may trip over
    /// any flaw by chance).
    private static func singleThreaded(without scenario: Scenario) -> [Scenario] {
        Scenario.singleThreaded.filter { $0 != scenario }
    }

    @Test func returnedDemandTurnedUnlimitedBreaksRule2() async {
        let missed = await PublisherContract.check(scenarios: Self.singleThreaded(without: .returnedDemandOnce)) {
            Toy(count: 10, flaw: .returnedDemandBecomesUnlimited)
        }
        #expect(missed.passed, "\(missed)")
        let report = await PublisherContract.check(scenarios: [.returnedDemandOnce]) {
            Toy(count: 10, flaw: .returnedDemandBecomesUnlimited)
        }
        #expect(report.brokenRules == [.demand], "\(report)")
        #expect(report.violations.first?.message == "value #4 (4) arrived with only .max(3) demanded")
        #expect(report.violations.first?.occurrences == 7)  // values 4 to 10
    }

    @Test func aCorrectPublisherStopsAtTheDemandReturnedOnce() async {
        let report = await PublisherContract.check(scenarios: [.returnedDemandOnce]) { Toy(count: 10) }
        #expect(report.passed, "\(report)")
    }

    @Test(.timeLimit(.minutes(3)))
    func aSecondCancelThatHangsBreaksRule4NotRule7() async {
        let report = await PublisherContract.check(scenarios: [.cancelInsideReceive, .cancelMidStream],
                                                   timeout: .milliseconds(200)) {
            Toy(flaw: .hangsOnSecondCancel)
        }
        #expect(report.brokenRules == [.release], "\(report)")
        #expect(report.scenarios(breaking: .release) == [.cancelInsideReceive, .cancelMidStream])
        let inside = report.violations.first { $0.scenario == .cancelInsideReceive }
        #expect(inside?.message.contains("call 2 to cancel() never returned, after an earlier one had been made") == true)
        #expect(inside?.message.hasSuffix("cancel() again, inside receive(value #1) [thread 1]") == true, "\(report)")
    }

    @Test(.timeLimit(.minutes(3)))
    func aFirstCancelThatDeadlocksInsideReceiveIsStillRule7() async {
        let report = await PublisherContract.check(scenarios: [.cancelInsideReceive], timeout: .milliseconds(200)) {
            DeadlockingPublisher()
        }
        #expect(report.brokenRules == [.reentrancy], "\(report)")
    }

    @Test func aCancelOverwrittenByTheEmissionLoopBreaksRule3() async {
        let missed = await PublisherContract.check(scenarios: Scenario.singleThreaded) {
            Toy(count: 200, flaw: .overwritesConcurrentCancel)
        }
        #expect(missed.passed, "\(missed)")
        // As in PublisherContractRaceTests: one verification flags it on a 2-core machine with a
        // build beside it; in a parallel run of the whole suite (seen missed once in a run under
        // Thread Sanitizer, which slows every access) the kit's two threads seldom run at once:
        // a second and third verification cover that.
        var report = await PublisherContract.check(scenarios: [.cancelFromAnotherThread]) {
            Toy(count: 200, flaw: .overwritesConcurrentCancel)
        }
        for _ in 1...2 where report.passed {
            report = await PublisherContract.check(scenarios: [.cancelFromAnotherThread]) {
                Toy(count: 200, flaw: .overwritesConcurrentCancel)
            }
        }
        #expect(report.brokenRules == [.termination], "\(report)")
        let violation = report.violations.first
        #expect(violation?.message.contains("arrived after cancel() had returned (on another thread) (trial ") == true,
                "\(report)")
        #expect(violation?.history.contains { $0.contains("→ cancel() from another thread, ") } == true)
    }

    @Test func anEndlessSynchronousPublisherPassesTheCancelRace() async {
        let report = await PublisherContract.check(scenarios: [.cancelFromAnotherThread]) { Toy(count: nil) }
        #expect(report.passed, "\(report)")
    }

    @Test func anAsynchronousPublisherIsNotComparedForOrder() async {
        // Ticker delivers on a queue of its own: its values are not compared (they could race).
        let report = await PublisherContract.check(scenarios: [.order], settle: .milliseconds(50)) { Ticker(count: 3) }
        #expect(report.passed, "\(report)")
    }

    @Test func valuesReorderedByReentrantDemandBreakRule7() async {
        let missed = await PublisherContract.check(scenarios: Self.singleThreaded(without: .order)) { Batcher() }
        #expect(missed.passed, "\(missed)")
        let report = await PublisherContract.check(scenarios: [.order]) { Batcher() }
        #expect(report.brokenRules == [.reentrancy], "\(report)")
        let violation = report.violations.first
        #expect(violation?.message == "order: under re-entrant demand the values arrived as [1, 3, 4, 5, 2]; a fresh"
            + " publisher given .max(5) up front delivers [1, 2, 3, 4, 5] — value #2 is 3 where 2 was expected")
        let index = violation?.eventIndex
        #expect(index.map { violation?.history[$0].contains("← value #2: 3") == true } == true, "\(report)")
    }

    @Test func publishersWhoseValuesDifferFromRunToRunAreNotCompared() async {
        let counter = Protected(0)
        let report = await PublisherContract.check(scenarios: [.order]) {
            Deferred { () -> Publishers.Sequence<[Int], Never> in
                let run = counter.withLock { count -> Int in
                    count += 1
                    return count
                }
                return [run, run + 1, run + 2].publisher
            }
        }
        #expect(report.passed, "\(report)")
        #expect(counter.withLock { $0 } == 3)  // the scenario's run, then two reference runs
    }

    @Test func aCorrectPublisherKeepsItsOrder() async {
        let report = await PublisherContract.check(scenarios: [.order]) { Toy(count: 8) }
        #expect(report.passed, "\(report)")
    }
}
