#if Server
import Sluice

/// One client of an ``EventFeed`` (``EventFeed/client(after:policy:)``): a publisher of the
/// ``FeedMessage``s this client is to get.
///
/// Each subscription joins the feed as a client of its own: live events wait in its buffer (of
/// ``SlowClientPolicy/bufferSize`` events) until its subscriber requests them; replayed events
/// are read from the feed's window as they are requested, outside that buffer. Messages are
/// delivered on the thread that requests them or on the upstream's thread, one at a time.
public struct FeedClient<Value: Sendable>: Publisher {
    /// What the client receives.
    public typealias Output = FeedMessage<Value>
    /// ``FeedClientFailure/fellBehind(buffered:)`` under ``SlowClientPolicy/disconnect(buffer:)``.
    public typealias Failure = FeedClientFailure

    /// The feed.
    public let feed: EventFeed<Value>
    /// Where this client starts.
    public let start: ResumePoint
    /// What happens when this client falls behind.
    public let policy: SlowClientPolicy

    /// Joins the feed: reads the history it missed if the feed's window does not reach back to it,
    /// attaches to the live events, takes the replay from the window, then hands the subscription
    /// to `subscriber`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == FeedMessage<Value>, S.Failure == FeedClientFailure {
        feed.join(TypedClientSink<Value, S>(subscriber), from: start, policy: policy)
    }
}

/// A ``FeedClient``'s subscriber as a ``ClientSink``: gives each message back its value's type.
final class TypedClientSink<Value: Sendable, Downstream: Subscriber>: ClientSink, @unchecked Sendable
where Downstream.Input == FeedMessage<Value>, Downstream.Failure == FeedClientFailure {
    private let downstream: Downstream

    init(_ downstream: Downstream) { self.downstream = downstream }

    func receive(subscription: ClientSubscription) { downstream.receive(subscription: subscription) }

    func receive(_ message: ClientMessage) -> Subscribers.Demand { downstream.receive(message.typed(as: Value.self)) }

    func receive(completion: Subscribers.Completion<FeedClientFailure>) { downstream.receive(completion: completion) }

    func feedIsFinishing() {}   // a subscriber learns of the end from the shutdown message

    var hasLeft: Bool { false }   // it cannot cancel before it has a subscription
}
#endif
