/// An event of a feed as its clients carry it: numbered, and boxed once for all of them.
///
/// The per-client machinery (``ClientSubscription``, ``ClientBuffer``, ``ClientOutlet``) is not
/// generic over the feed's values: the feed's subject reaches each client through an existential
/// subscriber, where generic code runs unspecialised and looks up generic metadata several times
/// per delivery. Only the edges see the value's type: ``FeedClient``'s subscriber and the SSE and
/// WebSocket writers, through ``value(as:)``.
class FeedEvent: @unchecked Sendable {
    /// The feed's number for this event, from 1.
    let id: UInt64

    init(id: UInt64) { self.id = id }

    /// The event's value; `Output` must be the type of the feed that made the event.
    @inline(__always)
    final func value<Output>(as _: Output.Type) -> Output {
        unsafeDowncast(self, to: TypedFeedEvent<Output>.self).value
    }
}

/// A ``FeedEvent`` of a feed of `Output`.
final class TypedFeedEvent<Output>: FeedEvent, @unchecked Sendable {
    let value: Output

    init(id: UInt64, value: Output) {
        self.value = value
        super.init(id: id)
    }
}

/// What one client is to receive, as the per-client machinery carries it: ``FeedMessage`` without
/// the value's type.
enum ClientMessage {
    case event(FeedEvent)
    case dropped(count: Int)
    case reset(missed: UInt64?)
    case shutdown(reason: String)

    /// The message with the value's type of a feed of `Output`.
    func typed<Output>(as _: Output.Type) -> FeedMessage<Output> {
        switch self {
        case .event(let event): .event(id: event.id, event.value(as: Output.self))
        case .dropped(let count): .dropped(count: count)
        case .reset(let missed): .reset(missed: missed)
        case .shutdown(let reason): .shutdown(reason: reason)
        }
    }
}
