import SluiceCore
import SluiceTesting
import Testing

@Suite struct PublisherContractReportTests {
    @Test func theReportNamesTheRuleTheScenarioAndShowsTheEvents() async {
        let report = await PublisherContract.check(scenarios: [.oneAtATime]) { Toy(flaw: .ignoresDemand) }
        let text = report.description
        #expect(text.hasPrefix("PublisherContract: Toy broke rule 2 — 1 violation in 1 scenario (oneAtATime)."))
        #expect(text.contains("✗ rule 2 (Never more values than demanded) — scenario oneAtATime: .max(1) at a time"))
        #expect(text.contains("  value #2 (2) arrived with only .max(1) demanded [4 times in this scenario]"))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("      1  ← receive(subscription: Inner<ContractProbe<Int, Never>>)"))
        #expect(lines.contains("      2    → request(.max(1)) inside receive(subscription:)"))
        #expect(lines.contains("      3    ← value #1: 1"))
        #expect(lines.contains("    ✗ 4    ← value #2: 2"))
        #expect(lines.contains("      8    ← finished"))
        #expect(lines.count == 12)
    }

    @Test func aPassingReportSaysSo() async {
        let report = await PublisherContract.check(scenarios: [.unlimited, .cancelEarly]) { Toy() }
        #expect(report.passed)
        #expect(report.violations.isEmpty)
        #expect(report.description == "PublisherContract: Toy kept the contract in 2 scenarios (unlimited, cancelEarly).")
    }

    @Test func longHistoriesAreShortenedAroundTheOffendingEvent() {
        let history = (1...200).map { "event \($0)" }
        let violation = PublisherContract.Violation(
            rule: .demand, scenario: .unlimited, message: "m", history: history, eventIndex: 99)
        let lines = violation.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("        1  event 1"))
        #expect(lines.contains("    ✗ 100  event 100"))
        #expect(lines.contains("      200  event 200"))
        #expect(!lines.contains("       50  event 50"))
        #expect(lines.contains("       … 75 more"))
        #expect(lines.count < 50)
    }

    @Test func everyRuleHasItsNumberAndName() {
        #expect(Rule.allCases.map(\.number) == Array(1...8))
        #expect(Rule.demand.description == "rule 2 (Never more values than demanded)")
        #expect(Set(Rule.allCases.map(\.name)).count == 8)
    }

    @Test func scenariosHaveDistinctNames() {
        #expect(Set(Scenario.all.map(\.name)).count == Scenario.all.count)
        #expect(Scenario.all == Scenario.singleThreaded + [.concurrent, .cancelFromAnotherThread])
        #expect(Scenario.oneAtATime.description == "oneAtATime")
    }
}
