#if Server
import NIOCore
/// An event of a feed as its clients carry it: boxed once for all of them, with its place in the
/// feed's order.
///
/// The per-client machinery (``ClientSubscription``, ``ClientBuffer``, ``ClientOutlet``) is not
/// generic over the feed's values: generic code reached through the feed's ``FeedRoster`` would run
/// unspecialised and look up generic metadata several times per delivery. Only the edges see the value's type: ``FeedClient``'s subscriber and the SSE and
/// WebSocket writers, through ``value(as:)``.
///
/// A **break** (``isBreak``) is not an event: the feed's history broke there (a new epoch, or
/// events trimmed away before the feed read them); it reaches every client as a reset message,
/// and events after it are numbered from ``id`` of ``epoch``.
package class FeedEvent: @unchecked Sendable {
    /// The event's position in its epoch (for a break: the position after which events follow).
    package let id: UInt64
    /// The epoch of the event's history.
    package let epoch: String
    /// The feed's own count of what it published, events and breaks, from 1: what a client's
    /// starting point already covers is recognised by it. 0 for events read from a history.
    let serial: UInt64
    /// Whether this is a break rather than an event.
    package let isBreak: Bool
    /// For an event of a feed of ``ServerSentEvent``s: its whole SSE frame (`id:` line, `event:`
    /// and `data:` lines), made once for every client that writes it as it is.
    package let frame: ByteBuffer?
    /// About how many bytes the event holds (its frame, or its value's text or bytes): what the
    /// feed's byte limits count.
    let bytes: Int

    init(id: UInt64, epoch: String, serial: UInt64, isBreak: Bool = false, frame: ByteBuffer? = nil, bytes: Int = 0) {
        self.id = id
        self.epoch = epoch
        self.serial = serial
        self.isBreak = isBreak
        self.frame = frame
        self.bytes = bytes
    }

    /// The event's id as clients see it.
    package final var eventID: EventID { EventID(uncheckedEpoch: epoch, position: id) }

    /// The event's value; `Output` must be the type of the feed that made the event.
    @inline(__always)
    package final func value<Output>(as _: Output.Type) -> Output {
        unsafeDowncast(self, to: TypedFeedEvent<Output>.self).value
    }
}

/// A ``FeedEvent`` of a feed of `Output`.
final class TypedFeedEvent<Output>: FeedEvent, @unchecked Sendable {
    let value: Output

    init(id: UInt64, epoch: String, serial: UInt64, value: Output) {
        self.value = value
        let frame = (value as? ServerSentEvent).map { ServerSentEvent.frame(of: $0, epoch: epoch, position: id) }
        super.init(id: id, epoch: epoch, serial: serial, frame: frame, bytes: frame?.readableBytes ?? Self.bytes(of: value))
    }

    /// The bytes of a value's text or bytes; for other values, their inline size.
    private static func bytes(of value: Output) -> Int {
        switch value {
        case let text as String: text.utf8.count
        case let buffer as ByteBuffer: buffer.readableBytes
        case let bytes as [UInt8]: bytes.count
        default: MemoryLayout<Output>.size
        }
    }
}

/// A break in a feed's history (``FeedEvent/isBreak``): every client gets a reset message here.
/// Its id is where a client stands after it: events after that position of its epoch follow.
package final class FeedBreak: FeedEvent, @unchecked Sendable {
    /// How many events were lost, when known.
    package let missed: UInt64?

    init(epoch: String, after position: UInt64, missed: UInt64?, serial: UInt64) {
        self.missed = missed
        super.init(id: position, epoch: epoch, serial: serial, isBreak: true)
    }
}

/// What one client is to receive, as the per-client machinery carries it: ``FeedMessage`` without
/// the value's type, and with the topic it concerns — the index of its feed among the connection's
/// topics (0 for a connection of one feed). The tag keeps the message as small as without it.
package enum ClientMessage {
    case event(FeedEvent, topic: Int32)
    case dropped(count: Int, topic: Int32)
    /// The history broke: the break says how many were missed and where the client now stands.
    case reset(FeedBreak, topic: Int32)
    case shutdown(reason: String)

    /// The message with the value's type of a feed of `Output`.
    func typed<Output>(as _: Output.Type) -> FeedMessage<Output> {
        switch self {
        case .event(let event, _): .event(id: event.eventID, event.value(as: Output.self))
        case .dropped(let count, _): .dropped(count: count)
        case .reset(let gap, _): .reset(missed: gap.missed)
        case .shutdown(let reason): .shutdown(reason: reason)
        }
    }

    /// The index of the topic the message concerns (`nil` for a shutdown, which concerns them all).
    package var topic: Int32? {
        switch self {
        case .event(_, let topic), .dropped(_, let topic), .reset(_, let topic): topic
        case .shutdown: nil
        }
    }
}

extension EventID {
    /// An id whose epoch is known to be well formed (it came from an ``EventID`` or a feed).
    init(uncheckedEpoch epoch: String, position: UInt64) {
        self.epoch = epoch
        self.position = position
    }
}
#endif
