extension EventSource {
    /// One event of a stream, as the parser dispatched it: its id, type, data and the `retry`
    /// value that came with it.
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

        /// An event.
        ///
        /// - Parameters:
        ///   - id: The last event ID when it was dispatched.
        ///   - event: Its type (`message` by default).
        ///   - data: Its data.
        ///   - retry: The reconnection time its lines set, in milliseconds.
        public init(id: String = "", event: String = "message", data: String, retry: Int? = nil) {
            self.id = id
            self.event = event
            self.data = data
            self.retry = retry
        }

        /// `id`, `event` and `data`, for logs.
        public var description: String {
            "id: \(id) event: \(event) data: \(data)"
        }
    }
}
