/// An operator that subscribes to inner publishers (`flatMap`, `switchToLatest`) and receives each
/// one's events tagged with the identifier it gave that inner.
@usableFromInline
protocol InnerPublisherOwner: AnyObject {
    /// The inner publishers' output.
    associatedtype InnerInput
    /// The inner publishers' failure.
    associatedtype InnerFailure: Error
    /// How the owner tells its inners apart.
    associatedtype InnerID
    /// What the inner subscribers report as their description (Apple's: "FlatMap"...).
    var innerName: String { get }
    /// An inner publisher's subscription arrived.
    func attachInner(_ id: InnerID, _ subscription: any Subscription)
    /// An inner publisher sent a value.
    func receiveInner(_ value: InnerInput, from id: InnerID) -> Subscribers.Demand
    /// An inner publisher completed.
    func completeInner(_ id: InnerID, _ completion: Subscribers.Completion<InnerFailure>)
}

/// The subscriber put on each inner publisher: forwards its events to the owner, tagged.
@usableFromInline
final class TaggedInnerSubscriber<Owner: InnerPublisherOwner>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Owner.InnerInput
    @usableFromInline typealias Failure = Owner.InnerFailure

    @usableFromInline let owner: Owner
    @usableFromInline let id: Owner.InnerID

    @inlinable
    init(owner: Owner, id: Owner.InnerID) {
        self.owner = owner
        self.id = id
    }

    @inlinable
    func receive(subscription: any Subscription) {
        owner.attachInner(id, subscription)
    }

    @inlinable
    func receive(_ input: Owner.InnerInput) -> Subscribers.Demand {
        owner.receiveInner(input, from: id)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Owner.InnerFailure>) {
        owner.completeInner(id, completion)
    }

    @usableFromInline var description: String { owner.innerName }
    /// "parentSubscription": the owner's combine identifier, as Apple's inner subscribers show.
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": CombineIdentifier(owner)])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
