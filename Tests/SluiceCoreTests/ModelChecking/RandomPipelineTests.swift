import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// One random case: a source, a pipeline of operators, and the demand a subscriber exercises it
/// with.
struct PipelineCase: CustomStringConvertible {
    var source: [Int]
    var sourceFails: Bool
    var operators: [ModelOperator]
    var initialDemand: Subscribers.Demand
    var demandPerValue: Subscribers.Demand
    var laterRequests: [Int]
    var cancelAfter: Int?

    var description: String {
        let head = "\(source).publisher" + (sourceFails ? ".append(Fail(ModelError()))" : "")
        return ([head] + operators.map(\.description)).joined(separator: "\n    .")
            + "\n  subscriber: initial \(initialDemand), per value \(demandPerValue), then requests \(laterRequests)"
            + (cancelAfter.map { ", cancels after value #\($0)" } ?? "")
    }

    static func random(seed: UInt64) -> PipelineCase {
        var g = SeededGenerator(seed: seed)
        let source = (0..<Int.random(in: 0...8, using: &g)).map { _ in Int.random(in: 0...5, using: &g) }
        let sourceFails = Bool.random(using: &g)
        let count = Int.random(in: 1...6, using: &g)
        var operators: [ModelOperator] = []
        var canFail = sourceFails
        while operators.count < count {
            let op = ModelOperator.random(upstreamCanFail: canFail, using: &g)
            // merge interleaves by demand: only the multiset of its output is known, so nothing
            // that depends on order may follow it.
            if op.ordersByDemand && operators.count != count - 1 { continue }
            operators.append(op)
            canFail = op.canFail(upstream: canFail)
        }
        let demands: [Subscribers.Demand] = [.none, .max(1), .max(2), .max(3), .unlimited]
        return PipelineCase(
            source: source, sourceFails: sourceFails, operators: operators,
            initialDemand: demands.randomElement(using: &g)!,
            demandPerValue: [.none, .none, .max(1), .max(2), .unlimited].randomElement(using: &g)!,
            laterRequests: (0..<Int.random(in: 1...4, using: &g)).map { _ in Int.random(in: 1...3, using: &g) },
            cancelAfter: Bool.random(using: &g) ? Int.random(in: 1...6, using: &g) : nil)
    }

    /// What the pipeline must emit, computed on arrays.
    var reference: ModelStream {
        operators.reduce(ModelStream(values: source, failed: sourceFails)) { $1.apply($0) }
    }

    var ordersByDemand: Bool { operators.contains(where: \.ordersByDemand) }

    /// Runs the pipeline and returns what is wrong with it, or `nil`.
    func check() -> String? {
        var publisher = source.publisher.setFailureType(to: ModelError.self).eraseToAnyPublisher()
        if sourceFails { publisher = publisher.append(Fail(error: ModelError())).eraseToAnyPublisher() }
        for op in operators { publisher = op.apply(publisher) }
        let subscriber = ModelSubscriber(self)
        publisher.subscribe(subscriber)
        var round = 0
        while subscriber.isWaiting, round < 200 {
            subscriber.request(.max(laterRequests[round % laterRequests.count]))
            round += 1
        }
        return subscriber.verdict(against: reference, ignoringOrder: ordersByDemand)
    }

    /// Smaller cases that still fail: one operator fewer, one source value fewer, no failure at
    /// the source, no cancel, unlimited demand.
    func simplifications() -> [PipelineCase] {
        var out: [PipelineCase] = []
        for i in operators.indices {
            var c = self
            c.operators.remove(at: i)
            if !c.operators.isEmpty, c.isWellFormed { out.append(c) }
        }
        for i in source.indices {
            var c = self
            c.source.remove(at: i)
            out.append(c)
        }
        if sourceFails { var c = self; c.sourceFails = false; out.append(c) }
        if cancelAfter != nil { var c = self; c.cancelAfter = nil; out.append(c) }
        if initialDemand != .unlimited { var c = self; c.initialDemand = .unlimited; out.append(c) }
        if demandPerValue != .none { var c = self; c.demandPerValue = .none; out.append(c) }
        return out
    }

    /// The generator's rules still hold (after an operator was removed while shrinking).
    private var isWellFormed: Bool {
        var canFail = sourceFails
        for (i, op) in operators.enumerated() {
            if op.needsNonFailingUpstream && canFail { return false }
            if op.ordersByDemand && i != operators.count - 1 { return false }
            canFail = op.canFail(upstream: canFail)
        }
        return true
    }

    /// The smallest failing case reachable by repeated simplification.
    func shrunk() -> PipelineCase {
        var current = self
        var progress = true
        while progress {
            progress = false
            for candidate in current.simplifications() where candidate.check() != nil {
                current = candidate
                progress = true
                break
            }
        }
        return current
    }
}

/// The subscriber that drives a case: it requests as the case says, cancels where it says, and
/// records every event together with any breach of the rules (values beyond demand, events after
/// cancel or completion).
final class ModelSubscriber: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = ModelError

    private let theCase: PipelineCase
    private var subscription: (any Subscription)?
    private var granted = Subscribers.Demand.none
    private(set) var values: [Int] = []
    private(set) var completion: Subscribers.Completion<ModelError>?
    private var cancelled = false
    private var breaches: [String] = []

    init(_ theCase: PipelineCase) { self.theCase = theCase }

    var isWaiting: Bool { completion == nil && !cancelled && subscription != nil }

    func request(_ demand: Subscribers.Demand) {
        granted += demand
        subscription?.request(demand)
    }

    func receive(subscription: any Subscription) {
        if self.subscription != nil { breaches.append("a second subscription") }
        self.subscription = subscription
        if theCase.initialDemand > .none { request(theCase.initialDemand) }
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        if cancelled { breaches.append("value \(input) after cancel") }
        if completion != nil { breaches.append("value \(input) after completion") }
        if granted != .unlimited, Subscribers.Demand.max(values.count) >= granted {
            breaches.append("value \(input) beyond demand (\(values.count) delivered, \(granted) granted)")
        }
        values.append(input)
        if let limit = theCase.cancelAfter, values.count == limit, !cancelled {
            cancelled = true
            subscription?.cancel()
            return .none
        }
        granted += theCase.demandPerValue
        return theCase.demandPerValue
    }

    func receive(completion: Subscribers.Completion<ModelError>) {
        if self.completion != nil { breaches.append("a second completion") }
        self.completion = completion
        if cancelled { cancelledThenCompleted = true }
    }

    private var cancelledThenCompleted = false

    func verdict(against reference: ModelStream, ignoringOrder: Bool) -> String? {
        if let breach = breaches.first { return breach }
        if subscription == nil { return "no subscription" }
        if let limit = theCase.cancelAfter, reference.values.count >= limit {
            let expected = Array(reference.values.prefix(limit))
            if ignoringOrder {
                // Which values come first depends on demand: any `limit` of the reference's.
                var remaining = reference.values
                for value in values {
                    guard let i = remaining.firstIndex(of: value) else { return "got \(values) before the cancel, not drawn from \(reference.values)" }
                    remaining.remove(at: i)
                }
                if values.count != limit { return "got \(values.count) values before cancelling after #\(limit)" }
            } else if values != expected {
                return "got \(values) before the cancel, expected \(expected)"
            }
            // Apple's single-value publishers finish right after their value even when it was
            // cancelled from inside receive(_:): only then may a completion follow the cancel.
            if cancelledThenCompleted, !(reference.values.count == limit && !reference.failed && completion == .finished) {
                return "\(String(describing: completion)) after the cancel"
            }
            return nil
        }
        guard same(values, reference.values, ignoringOrder) else { return "got \(values), expected \(reference.values)" }
        switch (completion, reference.failed) {
        case (.finished?, false), (.failure?, true): return nil
        case (nil, _): return "never completed (expected \(reference.failed ? "failure" : "finished"))"
        default: return "completed with \(completion!), expected \(reference.failed ? "failure" : "finished")"
        }
    }

    private func same(_ a: [Int], _ b: [Int], _ ignoringOrder: Bool) -> Bool {
        ignoringOrder ? a.sorted() == b.sorted() : a == b
    }
}

/// Random pipelines of one to six operators under random demand, each checked against the same
/// pipeline computed on plain arrays: same values in the same order, same completion, never more
/// values than demanded, nothing after a cancel. A failure prints the seed and the shrunk case.
/// `SLUICE_MODEL_CASES` (default 10,000) and `SLUICE_MODEL_SEED` run other or more cases.
@Suite struct RandomPipelineTests {
    @Test func randomPipelinesBehaveAsTheirModel() {
        let environment = ProcessInfo.processInfo.environment
        let cases = environment["SLUICE_MODEL_CASES"].flatMap(Int.init) ?? 10_000
        let seed = environment["SLUICE_MODEL_SEED"].flatMap(UInt64.init) ?? 0x5_1C3
        var failures = 0
        for index in 0..<cases {
            let caseSeed = seed &+ UInt64(index) &* 0x9E37_79B9
            let theCase = PipelineCase.random(seed: caseSeed)
            guard theCase.check() != nil else { continue }
            failures += 1
            if failures <= 3 {
                let small = theCase.shrunk()
                Issue.record("""
                    case \(index) (SLUICE_MODEL_SEED=\(seed), case seed \(caseSeed)) fails: \(small.check() ?? "?")
                    shrunk to:
                      \(small)
                    reference: \(small.reference)
                    """)
            }
        }
        #expect(failures == 0, "\(failures) of \(cases) random pipelines differ from their model")
    }

    /// The model itself, on a few cases worked out by hand.
    @Test func theReferenceModelIsRight() {
        let s = ModelStream(values: [1, 1, 2, 3], failed: true)
        #expect(ModelOperator.removeDuplicates.apply(s) == ModelStream(values: [1, 2, 3], failed: true))
        #expect(ModelOperator.prefix(2).apply(s) == ModelStream(values: [1, 1], failed: false))
        #expect(ModelOperator.prefix(5).apply(s) == s)
        #expect(ModelOperator.prefix(0).apply(s) == ModelStream(values: [], failed: false))
        #expect(ModelOperator.prefix(0).apply(ModelStream(values: [], failed: true)) == ModelStream(values: [], failed: true))
        #expect(ModelOperator.lastWhere(2).apply(s) == ModelStream(values: [], failed: true))
        #expect(ModelOperator.firstWhere(3).apply(s) == ModelStream(values: [3], failed: false))
        #expect(ModelOperator.collect(3).apply(s) == ModelStream(values: [ModelOperator.fold([1, 1, 2])], failed: true))
        #expect(ModelOperator.replaceError(-1).apply(s) == ModelStream(values: [1, 1, 2, 3, -1], failed: false))
        #expect(ModelOperator.output(1..<3).apply(s) == ModelStream(values: [1, 2], failed: false))
        #expect(ModelOperator.append([9]).apply(s) == s)
        #expect(ModelOperator.scan.apply(s) == ModelStream(values: [1, 2, 4, 7], failed: true))
    }
}
