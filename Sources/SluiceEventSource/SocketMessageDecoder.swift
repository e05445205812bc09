import Foundation

/// Reads a Sluice feed's WebSocket messages (SluiceFeed's `FeedSocketStream`) as the messages an
/// ``EventSocket`` publishes.
///
/// - A text message that is a JSON object with a string `id` is an event: its `id` (the last event
///   ID from then on, unless it contains U+0000 NULL), its `data` (a string as it is; any other JSON
///   value as its JSON text; the whole message if there is none) and its `event` (`message` if
///   there is none) — a feed's own encoding, `{"id":"…","data":"…"}`.
/// - `{"event":"dropped","dropped":n}`, `{"event":"reset","id":"…","missed":n}` (or `null`; its
///   `id`, where the client now stands, is the last event ID from then on) and
///   `{"event":"shutdown","reason":"…"}` are the feed's control messages: they become the events
///   `dropped`, `reset` and `shutdown` with the data an ``EventSource`` gets for them, so that both
///   clients publish the same typed values.
/// - Any other message is an event of type `message` whose data is the message's text (a binary
///   message decoded as UTF-8), with the last event ID.
///
/// On a socket of topics (SluiceFeed's `FeedSocketTopics`) it also keeps what the socket follows
/// (``TopicState``): `{"topic":"…","id":"…","data":"…"}` is an event of that topic, whose type is
/// the topic; `reset`, `dropped` and `refused` name their topic; `subscribed` and `unsubscribed`
/// are read, not published.
struct SocketMessageDecoder: EventStreamDecoder {
    private var messages: [Data] = []
    private var head = 0
    private(set) var lastEventID: String
    /// What a socket of topics follows (`nil`: a socket of one stream).
    private(set) var topics: TopicState?

    /// What a socket of topics follows, across its connections, and the messages that tell it to
    /// the server.
    ///
    /// A connection's URL must name a topic (a socket of topics is asked for with `?topic=`); the
    /// server follows it from the present at once. So a connection names a topic that has no
    /// position yet if there is one; otherwise it names one and, once open, unsubscribes from it
    /// and subscribes again after its last event, ignoring what it sends of that topic until it
    /// confirms the unsubscription. Every other topic is subscribed to, after its last event when
    /// there was one: each resumes exactly.
    struct TopicState: Equatable {
        /// The topics followed, in the order they were asked for.
        private(set) var wanted: [String]
        /// Each topic's last event's id, `<epoch>-<position>` (or where it is to resume after).
        private(set) var positions: [String: String] = [:]
        /// Topics whose messages are ignored until the server confirms they were left.
        private(set) var skipping: Set<String> = []
        /// The topic named in the URL of the last connection.
        private(set) var named: String?

        init(_ topics: [String]) {
            wanted = FeedCursor.list(topics)
        }

        /// The topic to name in the next connection's URL.
        mutating func connecting() -> String? {
            named = wanted.first { positions[$0] == nil } ?? wanted.first ?? named
            return named
        }

        /// The messages that make an open connection (whose URL named ``named``) follow every
        /// topic from where it stands.
        mutating func opened() -> [String] {
            skipping = []
            var messages: [String] = []
            if let named, !wanted.contains(named) || positions[named] != nil {
                messages.append(Self.unsubscribe(named))
                skipping.insert(named)
                if wanted.contains(named) { messages.append(Self.subscribe(named, after: positions[named])) }
            }
            for topic in wanted where topic != named {
                messages.append(Self.subscribe(topic, after: positions[topic]))
            }
            return messages
        }

        mutating func subscribe(_ topic: String, after: String?) -> [String] {
            guard !wanted.contains(topic) else { return [] }
            wanted.append(topic)
            positions[topic] = after
            return [Self.subscribe(topic, after: after)]
        }

        mutating func unsubscribe(_ topic: String) -> [String] {
            guard let index = wanted.firstIndex(of: topic) else { return [] }
            wanted.remove(at: index)
            positions[topic] = nil
            skipping.insert(topic)
            return [Self.unsubscribe(topic)]
        }

        /// Whether an event `id` of `topic` is to be published: a topic followed, not being left,
        /// and an event after the last one of its epoch (none is published twice).
        mutating func accepts(_ id: String, of topic: String) -> Bool {
            guard wanted.contains(topic), !skipping.contains(topic) else { return false }
            if let last = positions[topic].flatMap(FeedCursor.split), let this = FeedCursor.split(id),
               last.epoch == this.epoch, this.position <= last.position {
                return false
            }
            positions[topic] = id
            return true
        }

        /// Whether a control message of `topic` is to be published.
        func concerns(_ topic: String) -> Bool {
            wanted.contains(topic) && !skipping.contains(topic)
        }

        /// A reset put `topic` at `id`: it resumes after it.
        mutating func moved(_ topic: String, to id: String) {
            guard FeedCursor.split(id) != nil else { return }
            positions[topic] = id
        }

        /// The server left `topic`.
        mutating func left(_ topic: String) {
            skipping.remove(topic)
        }

        /// The server refused `topic`: it is not followed.
        mutating func refused(_ topic: String) {
            wanted.removeAll { $0 == topic }
            positions[topic] = nil
        }

        static func subscribe(_ topic: String, after: String?) -> String {
            "{\"subscribe\":\(jsonQuoted(topic))" + (after.map { ",\"after\":\(jsonQuoted($0))" } ?? "") + "}"
        }

        static func unsubscribe(_ topic: String) -> String {
            "{\"unsubscribe\":\(jsonQuoted(topic))}"
        }
    }

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
        while head < messages.count {
            let data = messages[head]
            head += 1
            if head == messages.count {
                messages.removeAll(keepingCapacity: true)
                head = 0
            }
            if let message = message(decoding: data) { return message }
        }
        return nil
    }

    mutating func follow(_ topics: [String]) {
        self.topics = topics.isEmpty ? nil : TopicState(topics)
    }

    mutating func connecting() -> [String] {
        topics?.connecting().map { [$0] } ?? []
    }

    mutating func opened() -> [String] {
        messages = []
        head = 0
        return topics?.opened() ?? []
    }

    mutating func subscribe(_ topic: String, after: String?) -> [String] {
        topics?.subscribe(topic, after: after) ?? []
    }

    mutating func unsubscribe(_ topic: String) -> [String] {
        topics?.unsubscribe(topic) ?? []
    }

    /// A socket's messages name their topics themselves.
    func placed(_ message: EventSource.Message, in topics: [String]) -> EventSource.Message { message }

    /// The message `data` is, or `nil` when it is not published (a socket of topics' confirmations,
    /// and what it sends of a topic it does not follow).
    private mutating func message(decoding data: Data) -> EventSource.Message? {
        guard data.first == UInt8(ascii: "{"),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return EventSource.Message(id: lastEventID, data: String(decoding: data, as: UTF8.self))
        }
        let event = object["event"] as? String
        if topics != nil, let message = topicMessage(object, event: event) {
            return message.published ? message.message : nil
        }
        if let control = event.flatMap({ Self.control($0, in: object) }) {
            // A reset's id is where the client now stands: the next connection resumes after it.
            if control.event == "reset", let id = object["id"] as? String, !id.contains("\0") { lastEventID = id }
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

    /// A message of a socket of topics — an event of a topic, or a control message naming one —
    /// and whether it is published; `nil` for any other message.
    private mutating func topicMessage(_ object: [String: Any], event: String?) -> (message: EventSource.Message?, published: Bool)? {
        guard var state = topics else { return nil }
        defer { topics = state }
        let topic = object["topic"] as? String
        switch event {
        case nil:
            guard let topic, let id = object["id"] as? String, let data = object["data"] as? String else { return nil }
            guard state.accepts(id, of: topic) else { return (nil, false) }
            return (EventSource.Message(id: id, event: topic, data: data, topic: topic, topicEventID: id), true)
        case "subscribed":
            return (nil, false)
        case "unsubscribed":
            if let topic { state.left(topic) }
            return (nil, false)
        case "refused":
            guard let reason = object["reason"] as? String else { return nil }
            if let topic { state.refused(topic) }
            let data = "{\"topic\":\(topic.map(jsonQuoted) ?? "null"),\"reason\":\(jsonQuoted(reason))}"
            return (EventSource.Message(id: lastEventID, event: "refused", data: data, topic: topic), true)
        case "reset", "dropped":
            guard let topic, let control = Self.control(event!, in: object) else { return nil }
            guard state.concerns(topic) else { return (nil, false) }
            if event == "reset", let id = object["id"] as? String { state.moved(topic, to: id) }
            let data = "{\"topic\":\(jsonQuoted(topic)),\(control.data.dropFirst())"
            return (EventSource.Message(id: lastEventID, event: control.event, data: data, topic: topic), true)
        default:
            return nil
        }
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

/// `text` as a JSON string.
func jsonQuoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}
