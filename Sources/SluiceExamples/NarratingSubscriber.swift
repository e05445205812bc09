import Sluice

/// A subscriber that asks for a limited number of values and narrates what happens, keeping its
/// own tally of the outstanding demand — the same running `limit` a well-behaved subscription
/// keeps — so that a value arriving with no demand left stands out.
///
/// The examples drive it one step at a time (an asynchronous publisher is waited for before the
/// next step), so it is used from one thread at a time and needs no lock.
final class NarratingSubscriber<Input, Failure: Error>: Subscriber, Cancellable {
    private let initialDemand: Subscribers.Demand
    private let describe: (Input) -> String
    private let say: (String) -> Void
    private var subscription: (any Subscription)?
    private var limit = Subscribers.Demand.none

    /// How many values arrived when no demand was left.
    private(set) var valuesBeyondDemand = 0

    /// A subscriber that requests `initialDemand` on subscription (nothing for `.none`) and tells
    /// `say` about each event, showing values with `describe`.
    init(
        initialDemand: Subscribers.Demand,
        describe: @escaping (Input) -> String = { "\($0)" },
        say: @escaping (String) -> Void
    ) {
        self.initialDemand = initialDemand
        self.describe = describe
        self.say = say
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        if initialDemand > .none { request(initialDemand) }
    }

    /// Asks for `demand` more values.
    func request(_ demand: Subscribers.Demand) {
        limit += demand
        say("subscriber requests \(demand); limit is \(limit)")
        subscription?.request(demand)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        if limit > .none {
            limit -= 1
            say("received \(describe(input)); limit is \(limit)")
        } else {
            valuesBeyondDemand += 1
            say("received \(describe(input)), but the limit was \(limit): more than requested!")
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        subscription = nil
        say("received completion: \(completion)")
    }

    /// Cancels the subscription.
    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
