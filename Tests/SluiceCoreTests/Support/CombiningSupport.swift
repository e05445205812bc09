import SluiceCore
import SluiceTesting

/// The values a subscriber of tuples received, as strings: `["(1, \"a\")", ...]` (tuples are not
/// Equatable).
func tupleStrings<Input, Failure: Error>(_ subscriber: TestSubscriber<Input, Failure>) -> [String] {
    subscriber.values.map { "\($0)" }
}

/// A subscriber for the stress tests: records the values (under a lock) and flags overlapping
/// `receive` calls.
final class RecordingSink<Input>: Subscriber, @unchecked Sendable {
    typealias Failure = Never
    let detector = OverlapDetector()
    private let recorded = Shared<[Input]>([])
    private let completions = Shared(0)
    private let demand: Subscribers.Demand
    private let perValue: Subscribers.Demand

    init(initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none) {
        demand = initialDemand
        perValue = demandPerValue
    }

    var values: [Input] { recorded.value }
    var completionCount: Int { completions.value }

    func receive(subscription: any Subscription) {
        if demand != .none { subscription.request(demand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        detector.enter()
        recorded.mutate { $0.append(input) }
        detector.leave()
        return perValue
    }

    func receive(completion: Subscribers.Completion<Never>) {
        detector.enter()
        completions.mutate { $0 += 1 }
        detector.leave()
    }
}
