extension PublisherContract {
    /// The rules every publisher and subscription keeps, numbered as in Sluice's design
    /// ("The contract"). Every ``Violation`` names the rule it breaks.
    ///
    /// ``PublisherContract`` checks rules 1–4, 7 and 8 by running the publisher. Rule 5 (zero demand
    /// traps) is checked on a publisher's own subscription in a child process — see
    /// ``PublisherContract/requestZeroDemand(from:)`` — and on what an operator sends upstream in
    /// operator mode, as is rule 6 (operators cancel their upstream when they finish early): see
    /// ``PublisherContract/verifyOperator(scenarios:upstream:upstreamDemand:settle:timeout:valueLimit:_:)``.
    /// Rule 7 includes the order check (``PublisherContract/Scenario/order``): re-entrant demand
    /// must not reorder values.
    public enum Rule: Int, CaseIterable, Comparable, Hashable, Sendable, CustomStringConvertible {
        /// 1. `receive(subscription:)` comes first, exactly once, before anything else.
        case subscriptionFirst = 1
        /// 2. Never more values than the total demand requested (plus demand returned from `receive(_:)`).
        case demand = 2
        /// 3. At most one completion; nothing after it; nothing after `cancel()`.
        case termination = 3
        /// 4. `cancel()` is idempotent and thread-safe, and releases the downstream and upstream
        /// references (no retain cycle survives a cancel or a completion).
        case release = 4
        /// 5. `request(_:)` with `.none` (zero) is a programmer error: a precondition with a clear message.
        case zeroDemand = 5
        /// 6. Upstream subscriptions are cancelled when an operator finishes early.
        case earlyFinish = 6
        /// 7. Re-entrancy is allowed: `request` or `cancel` from inside `receive`, a subject sent to
        /// from inside a sink — without deadlock or reordering (the kit's "order" check).
        case reentrancy = 7
        /// 8. Thread-safety: `request`, `cancel` and a subject's `send` may be called from any thread.
        case threadSafety = 8

        /// The rule's number in the contract, 1 to 8.
        public var number: Int { rawValue }

        /// A short name: "Subscription first, exactly once".
        public var name: String {
            switch self {
            case .subscriptionFirst: "Subscription first, exactly once"
            case .demand: "Never more values than demanded"
            case .termination: "At most one completion; nothing after it or after cancel"
            case .release: "Cancel is idempotent and releases references"
            case .zeroDemand: "Zero demand is a programmer error"
            case .earlyFinish: "Early finish cancels upstream"
            case .reentrancy: "Re-entrant request and cancel neither deadlock nor reorder"
            case .threadSafety: "Thread-safety"
            }
        }

        /// "rule 2 (Never more values than demanded)".
        public var description: String { "rule \(number) (\(name))" }

        /// Orders rules by number.
        public static func < (lhs: Rule, rhs: Rule) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// One broken rule, found under one scenario, with the events that show it.
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        /// The rule broken.
        public let rule: Rule
        /// The demand pattern under which it broke.
        public let scenario: Scenario
        /// What happened, for example "value #2 (Moe) arrived with only 1 demanded".
        public let message: String
        /// How many times the same thing happened in this scenario (1 or more).
        public let occurrences: Int
        /// Everything the kit's probe subscriber saw (`←`) and did (`→`) in this scenario, in order.
        public let history: [String]
        /// The index in ``history`` of the first event that shows the violation, if one does
        /// (a retained subscriber or a hang is shown by what is missing, not by an event).
        public let eventIndex: Int?

        /// Creates a violation. The kit creates them; tests of other kits may too.
        public init(rule: Rule, scenario: Scenario, message: String, occurrences: Int = 1, history: [String],
                    eventIndex: Int?)
        {
            self.rule = rule
            self.scenario = scenario
            self.message = message
            self.occurrences = occurrences
            self.history = history
            self.eventIndex = eventIndex
        }

        /// The rule, the scenario, the message and the event history (long histories are shortened
        /// around the offending event).
        public var description: String {
            var text = "✗ \(rule) — scenario \(scenario.name): \(scenario.summary)\n"
            text += "  \(message)"
            if occurrences > 1 { text += " [\(occurrences) times in this scenario]" }
            text += "\n  events" + (eventIndex == nil ? ":\n" : " (✗ marks the first that shows it):\n")
            text += PublisherContract.render(history, highlighting: eventIndex)
            return text
        }
    }

    /// The outcome of a verification: every violation found, by rule and scenario.
    ///
    /// ``PublisherContract/verify(scenarios:settle:timeout:valueLimit:drive:_:)`` throws it when
    /// it is not empty; ``PublisherContract/check(scenarios:settle:timeout:valueLimit:drive:_:)``
    /// returns it. Its `description` lists each violation with the events that show it.
    public struct Report: Error, Sendable, CustomStringConvertible {
        /// The publisher's type, as `String(describing:)` shows it.
        public let publisher: String
        /// The scenarios that were run.
        public let scenarios: [Scenario]
        /// Every violation found, in scenario order.
        public let violations: [Violation]

        /// Creates a report. The kit creates them; tests of other kits may too.
        public init(publisher: String, scenarios: [Scenario], violations: [Violation]) {
            self.publisher = publisher
            self.scenarios = scenarios
            self.violations = violations
        }

        /// `true` when no rule was broken.
        public var passed: Bool { violations.isEmpty }

        /// The rules broken, by number.
        public var brokenRules: [Rule] { Array(Set(violations.map(\.rule))).sorted() }

        /// The violations of `rule`.
        public func violations(of rule: Rule) -> [Violation] { violations.filter { $0.rule == rule } }

        /// The scenarios under which `rule` broke.
        public func scenarios(breaking rule: Rule) -> [Scenario] {
            var seen: [Scenario] = []
            for violation in violations where violation.rule == rule && !seen.contains(violation.scenario) {
                seen.append(violation.scenario)
            }
            return seen
        }

        /// A summary line, then each violation with its events.
        public var description: String {
            let names = scenarios.map(\.name).joined(separator: ", ")
            guard !passed else {
                let count = "\(scenarios.count) scenario\(scenarios.count == 1 ? "" : "s")"
                return "PublisherContract: \(publisher) kept the contract in \(count) (\(names))."
            }
            let rules = brokenRules.map { "\($0.number)" }.joined(separator: ", ")
            var text = "PublisherContract: \(publisher) broke rule\(brokenRules.count == 1 ? "" : "s") \(rules)"
            text += " — \(violations.count) violation\(violations.count == 1 ? "" : "s")"
            text += " in \(scenarios.count) scenario\(scenarios.count == 1 ? "" : "s") (\(names)).\n"
            for violation in violations {
                text += "\n" + violation.description
            }
            return text
        }
    }

    /// Numbers the history, marks `highlight`, and shortens a long history around it.
    static func render(_ history: [String], highlighting highlight: Int?) -> String {
        guard !history.isEmpty else { return "       (no events)\n" }
        var shown = Set<Int>()
        if history.count <= 40 {
            shown.formUnion(history.indices)
        } else {
            shown.formUnion(0..<min(12, history.count))
            if let highlight {
                shown.formUnion(max(0, highlight - 12)..<min(history.count, highlight + 6))
            }
            shown.formUnion(max(0, history.count - 6)..<history.count)
        }
        var text = ""
        var previous = -1
        let width = String(history.count).count
        for index in shown.sorted() {
            if index != previous + 1 {
                text += "       … \(index - previous - 1) more\n"
            }
            let number = String(index + 1)
            let padded = String(repeating: " ", count: width - number.count) + number
            text += "    \(index == highlight ? "✗" : " ") \(padded)  \(history[index])\n"
            previous = index
        }
        return text
    }
}
