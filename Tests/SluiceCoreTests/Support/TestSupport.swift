import SluiceCore
import Synchronization

/// A publisher under the test's full control, for testing subscribers and operators: it records
/// what its subscribers ask of their subscriptions and lets the test send any event — including
/// ones a well-behaved publisher never sends (values without demand, events after cancel).
final class ManualPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// The subscription each subscriber receives; records requests and cancellations.
    final class Subscription: SluiceCore.Subscription, CustomStringConvertible, @unchecked Sendable {
        private let state = Shared<(requests: [Subscribers.Demand], cancels: Int)>(([], 0))
        var requests: [Subscribers.Demand] { state.value.requests }
        var cancelCount: Int { state.value.cancels }
        var isCancelled: Bool { cancelCount > 0 }
        /// The sum of every request.
        var totalDemand: Subscribers.Demand { requests.reduce(.none, +) }
        /// Runs after a request is recorded (e.g. to send synchronously, like a real publisher).
        var onRequest: ((Subscribers.Demand) -> Void)?
        func request(_ demand: Subscribers.Demand) {
            state.mutate { $0.requests.append(demand) }
            onRequest?(demand)
        }
        func cancel() { state.mutate { $0.cancels += 1 } }
        var description: String { "ManualSubscription" }
    }

    private struct Attached {
        let description: String
        let identifier: CombineIdentifier
        let value: (Output) -> Subscribers.Demand
        let completion: (Subscribers.Completion<Failure>) -> Void
    }

    private let attached = Shared<[Attached]>([])
    let subscription = Subscription()

    /// How many subscribers attached.
    var subscriberCount: Int { attached.value.count }
    /// `String(describing:)` of the last subscriber attached: what `print()` would show for it.
    var subscriberDescription: String? { attached.value.last?.description }
    /// The `combineIdentifier` of every subscriber attached, in order.
    var subscriberIdentifiers: [CombineIdentifier] { attached.value.map(\.identifier) }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let entry = Attached(description: String(describing: subscriber), identifier: subscriber.combineIdentifier,
                             value: subscriber.receive(_:),
                             completion: subscriber.receive(completion:))
        attached.mutate { $0.append(entry) }
        subscriber.receive(subscription: subscription)
    }

    /// Sends a value to the last subscriber, returning the demand it returned.
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        attached.value.last!.value(value)
    }

    /// Sends a completion to the last subscriber.
    func send(completion: Subscribers.Completion<Failure>) {
        attached.value.last!.completion(completion)
    }

    /// Forgets the subscribers (so that the publisher no longer keeps them alive).
    func detachAll() {
        let dropped = attached.mutate { list -> [Attached] in
            defer { list = [] }
            return list
        }
        _ = dropped
    }
}

/// Detects overlapping calls: `enter()` at the start of a callback, `leave()` at its end.
final class OverlapDetector: Sendable {
    private let active = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)
    var overlaps: Int { overlapCount.load(ordering: .sequentiallyConsistent) }
    func enter() {
        if active.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
            overlapCount.add(1, ordering: .sequentiallyConsistent)
        }
    }
    func leave() { active.subtract(1, ordering: .sequentiallyConsistent) }
}

/// A lock-protected box for state shared with closures that may run on other threads.
final class Shared<Value>: @unchecked Sendable {
    private let storage: Protected<Value>
    init(_ value: Value) { storage = Protected(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    func mutate<R>(_ body: (inout Value) -> R) -> R { storage.withLock(body) }
}

/// An object to watch for deallocation through a weak reference.
final class Token: @unchecked Sendable {
    var value = 0
}

/// An error for failure completions.
struct TestError: Error, Equatable, Hashable, Codable {
    var code = 1
}

/// A publisher that keeps its subscriber and sends it nothing until told: the misbehaving or
/// slow upstream of the "before the subscription" tests. `subscriber` is the subscriber itself
/// (an operator's subscriber is often also the downstream's subscription).
final class LatePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let attached = Shared<(subscriber: Any?, value: ((Output) -> Subscribers.Demand)?,
                                   completion: ((Subscribers.Completion<Failure>) -> Void)?,
                                   subscription: ((any Subscription) -> Void)?)>((nil, nil, nil, nil))

    /// The subscriber attached last.
    var subscriber: Any? { attached.value.subscriber }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        attached.value = (subscriber, subscriber.receive(_:), subscriber.receive(completion:),
                          subscriber.receive(subscription:))
    }

    /// Sends `subscription` to the subscriber.
    func send(subscription: any Subscription) { attached.value.subscription!(subscription) }

    /// Sends a value, returning the demand the subscriber returned.
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand { attached.value.value!(value) }

    /// Sends a completion.
    func send(completion: Subscribers.Completion<Failure>) { attached.value.completion!(completion) }
}
