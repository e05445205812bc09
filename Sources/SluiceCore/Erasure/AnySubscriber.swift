/// A type-erasing subscriber.
///
/// Use an `AnySubscriber` to wrap an existing subscriber whose details you don't want to expose,
/// or to build a subscriber from closures. Each event is forwarded unchanged, so the wrapped
/// subscriber's demand is the demand.
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline
    let box: SubscriberBoxBase<Input, Failure>

    /// The wrapped subscriber's identifier (a new one for closure-based subscribers).
    public let combineIdentifier: CombineIdentifier

    /// Creates a type-erasing subscriber to wrap an existing subscriber.
    @inlinable
    public init<S: Subscriber>(_ s: S) where S.Input == Input, S.Failure == Failure {
        if let erased = s as? AnySubscriber<Input, Failure> {
            self = erased
        } else {
            box = SubscriberBox(s)
            combineIdentifier = s.combineIdentifier
        }
    }

    /// Creates a type-erasing subscriber that forwards each event to the given subject, through
    /// the same bridge as ``Publisher/subscribe(_:)-570jv`` (described as `"Subject"`): the first
    /// subscription reaches the subject as the bridge itself (later ones are cancelled), values go
    /// to ``Subject/send(_:)`` and the first completion to ``Subject/send(completion:)``.
    public init<S: Subject>(_ s: S) where S.Output == Input, S.Failure == Failure {
        self.init(SubjectSubscriber(s))
    }

    /// Creates a type-erasing subscriber that executes the provided closures. A `nil` value
    /// closure returns `.none`; `nil` closures otherwise do nothing.
    public init(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        box = ClosureSubscriberBox(
            receiveSubscription: receiveSubscription, receiveValue: receiveValue, receiveCompletion: receiveCompletion)
        combineIdentifier = CombineIdentifier()
    }

    /// Forwards the subscription to the wrapped subscriber.
    @inlinable
    public func receive(subscription: any Subscription) {
        box.receive(subscription: subscription)
    }

    /// Forwards the value to the wrapped subscriber and returns its demand.
    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
        box.receive(value)
    }

    /// Forwards the completion to the wrapped subscriber.
    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
        box.receive(completion: completion)
    }

    /// The wrapped subscriber's description, or `"Anonymous AnySubscriber"` for closures.
    public var description: String { box.description }

    /// The wrapped subscriber's mirror.
    public var customMirror: Mirror { box.customMirror }

    /// The same as ``description``.
    public var playgroundDescription: Any { description }
}

/// The erased interface of a subscriber.
@usableFromInline
class SubscriberBoxBase<Input, Failure: Error>: @unchecked Sendable {
    @inlinable
    init() {}
    @inlinable
    func receive(subscription: any Subscription) { fatalError("abstract") }
    @inlinable
    func receive(_ value: Input) -> Subscribers.Demand { fatalError("abstract") }
    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) { fatalError("abstract") }
    var description: String { "Anonymous AnySubscriber" }
    /// As Apple's: the mirror of the description string (no children).
    var customMirror: Mirror { Mirror(reflecting: description) }
}

/// Holds a concrete subscriber.
@usableFromInline
final class SubscriberBox<S: Subscriber>: SubscriberBoxBase<S.Input, S.Failure>, @unchecked Sendable {
    @usableFromInline
    let subscriber: S

    @inlinable
    init(_ subscriber: S) {
        self.subscriber = subscriber
    }

    @inlinable
    override func receive(subscription: any Subscription) { subscriber.receive(subscription: subscription) }
    @inlinable
    override func receive(_ value: S.Input) -> Subscribers.Demand { subscriber.receive(value) }
    @inlinable
    override func receive(completion: Subscribers.Completion<S.Failure>) { subscriber.receive(completion: completion) }
    override var description: String { String(describing: subscriber) }
    override var customMirror: Mirror { Mirror(reflecting: subscriber) }
}

/// Runs closures for each event.
final class ClosureSubscriberBox<Input, Failure: Error>: SubscriberBoxBase<Input, Failure>, @unchecked Sendable {
    let receiveSubscriptionClosure: ((any Subscription) -> Void)?
    let receiveValueClosure: ((Input) -> Subscribers.Demand)?
    let receiveCompletionClosure: ((Subscribers.Completion<Failure>) -> Void)?

    init(
        receiveSubscription: ((any Subscription) -> Void)?,
        receiveValue: ((Input) -> Subscribers.Demand)?,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    ) {
        receiveSubscriptionClosure = receiveSubscription
        receiveValueClosure = receiveValue
        receiveCompletionClosure = receiveCompletion
    }

    override func receive(subscription: any Subscription) { receiveSubscriptionClosure?(subscription) }
    override func receive(_ value: Input) -> Subscribers.Demand { receiveValueClosure?(value) ?? .none }
    override func receive(completion: Subscribers.Completion<Failure>) { receiveCompletionClosure?(completion) }
}

// Not `Sendable` in Apple's Combine. Frozen, so Swift would infer `Sendable` from its stored
// properties: under the `AppleConcurrencyShape` trait, that inference is switched off.
#if AppleConcurrencyShape
@available(*, unavailable)
extension AnySubscriber: Sendable {}
#endif
