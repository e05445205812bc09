import Foundation

/// Reads a Sluice feed's WebSocket messages (SluiceFeed's `FeedSocketStream`) as the messages an
/// ``EventSocket`` publishes.
///
/// - A text message that is a JSON object with a string `id` is an event: its `id` (the last event
///   ID from then on, unless it contains U+0000 NULL), its `data` (a string as it is; any other JSON
///   value as its JSON text; the whole message if there is none) and its `event` (`message` if
///   there is none) — a feed's own encoding, `{"id":"…","data":"…"}`.
/// - `{"event":"dropped","dropped":n}`, `{"event":"reset","missed":n}` (or `null`) and
///   `{"event":"shutdown","reason":"…"}` are the feed's control messages: they become the events
///   `dropped`, `reset` and `shutdown` with the data an ``EventSource`` gets for them, so that both
///   clients publish the same typed values.
/// - Any other message is an event of type `message` whose data is the message's text (a binary
///   message decoded as UTF-8), with the last event ID.
struct SocketMessageDecoder: EventStreamDecoder {
    private var messages: [Data] = []
    private var head = 0
    private(set) var lastEventID: String

    init(lastEventID: String) {
        self.lastEventID = lastEventID
    }

    /// A WebSocket stream sets no reconnection time.
    var reconnectionTime: Int? { nil }

    /// Messages arrive whole (their size is bounded as they are read), so nothing is held unfinished.
    var unfinishedEventSize: Int { 0 }

    mutating func take(_ data: Data) {
        messages.append(data)
    }

    mutating func next() -> EventSource.Message? {
        guard head < messages.count else { return nil }
        let data = messages[head]
        head += 1
        if head == messages.count {
            messages.removeAll(keepingCapacity: true)
            head = 0
        }
        return message(decoding: data)
    }

    private mutating func message(decoding data: Data) -> EventSource.Message {
        guard data.first == UInt8(ascii: "{"),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return EventSource.Message(id: lastEventID, data: String(decoding: data, as: UTF8.self))
        }
        let event = object["event"] as? String
        if let control = event.flatMap({ Self.control($0, in: object) }) {
            return EventSource.Message(id: lastEventID, event: control.event, data: control.data)
        }
        if let id = object["id"] as? String, !id.contains("\0") {
            lastEventID = id
        }
        let text: String
        switch object["data"] {
        case let string as String:
            text = string
        case let value?:
            let json = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
            text = json.map { String(decoding: $0, as: UTF8.self) } ?? String(decoding: data, as: UTF8.self)
        case nil:
            text = String(decoding: data, as: UTF8.self)
        }
        return EventSource.Message(id: lastEventID, event: event ?? "message", data: text)
    }

    /// A feed's control message as the event and data a Server-Sent Events stream gives it.
    private static func control(_ event: String, in object: [String: Any]) -> (event: String, data: String)? {
        switch event {
        case "dropped":
            guard let count = object["dropped"] as? Int else { return nil }
            return (event, "{\"dropped\":\(count)}")
        case "reset":
            if object["missed"] is NSNull { return (event, #"{"missed":null}"#) }
            guard let missed = object["missed"] as? Int else { return nil }
            return (event, "{\"missed\":\(missed)}")
        case "shutdown":
            return (event, object["reason"] as? String ?? "")
        default:
            return nil
        }
    }
}
