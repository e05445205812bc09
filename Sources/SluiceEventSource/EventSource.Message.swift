extension EventSource {
    /// One event of a stream, as the parser dispatched it: its id, type, data and the `retry`
    /// value that came with it; on a stream of several topics, also the topic it belongs to and
    /// its id in that topic.
    public struct Message: Sendable, Hashable, CustomStringConvertible {
        /// The last event ID when the event was dispatched: the value of the event's own `id`
        /// field, or of the latest one before it (an empty string if there was none).
        public var id: String
        /// The event's type: the value of its `event` field, or `message` if it had none.
        public var event: String
        /// The event's data: its `data` lines joined by LF.
        public var data: String
        /// The reconnection time in milliseconds that a `retry` field in this event's lines set, or
        /// `nil` if none did (an `EventSource` applies every valid `retry` field, also one in a
        /// block without data).
        public var retry: Int?
        /// On a stream of several topics, the topic the event belongs to (`nil` on a stream of one).
        ///
        /// Over Server-Sent Events it is the event's type (a Sluice feed names each event by its
        /// topic, `event: <topic>`) when that is one of the ``EventSource/topics``; over an
        /// ``EventSocket`` of topics, the message's `"topic"`.
        public var topic: String?
        /// On a stream of several topics, the event's id in its topic, `<epoch>-<position>` (`nil`
        /// on a stream of one, or when the stream did not say it).
        ///
        /// Over Server-Sent Events ``id`` is the connection's cursor — where it stands in every
        /// topic, what a reconnection sends as `Last-Event-ID` — and this is the topic's entry of
        /// it; over an ``EventSocket`` of topics it is the message's `"id"` (and ``id`` too). It is
        /// what ``EventSocket/subscribe(_:after:)`` resumes that topic after.
        public var topicEventID: String?

        /// An event.
        ///
        /// - Parameters:
        ///   - id: The last event ID when it was dispatched.
        ///   - event: Its type (`message` by default).
        ///   - data: Its data.
        ///   - retry: The reconnection time its lines set, in milliseconds.
        ///   - topic: On a stream of several topics, the event's topic.
        ///   - topicEventID: On a stream of several topics, the event's id in its topic.
        public init(id: String = "", event: String = "message", data: String, retry: Int? = nil,
                    topic: String? = nil, topicEventID: String? = nil) {
            self.id = id
            self.event = event
            self.data = data
            self.retry = retry
            self.topic = topic
            self.topicEventID = topicEventID
        }

        /// `id`, `event` and `data` (and the topic and its id, on a stream of several topics), for
        /// logs.
        public var description: String {
            guard let topic else { return "id: \(id) event: \(event) data: \(data)" }
            return "topic: \(topic) id: \(topicEventID ?? id) data: \(data)"
        }
    }
}
