extension EventSource {
    /// What an ``EventSource`` publishes: the stream's events, with the control events of a Sluice
    /// feed (SluiceFeed's `ServerSentEventStream`) as typed values.
    ///
    /// A Sluice feed sends three control events besides its own, without an `id` line (so the last
    /// event ID does not move):
    /// - `event: reset`, data `{"missed":n}` or `{"missed":null}`: what the client resumed from is
    ///   gone (another epoch, an id older than the feed's history, or one it cannot place) and it
    ///   continues from the present; refetch the state the events build up.
    /// - `event: dropped`, data `{"dropped":n}`: the server dropped `n` events for this client
    ///   because it fell behind; the same advice holds.
    /// - `event: shutdown`, data: the reason. The server closes the stream next and the client
    ///   reconnects (to another instance, behind a load balancer).
    ///
    /// With ``Configuration/recognizesSluiceControlEvents`` off, or when the data of a `reset` or
    /// `dropped` event is not what Sluice sends, the event is an ordinary ``event(_:)``.
    public enum Event: Sendable, Hashable {
        /// An event of the stream.
        case event(Message)
        /// The server could not resume the stream where the client asked: `missed` events were
        /// lost (`nil`: an unknown number). Rebuild what depends on the events.
        case reset(missed: Int?)
        /// The server dropped `count` events for this client because it read too slowly.
        case dropped(count: Int)
        /// The server is shutting down this stream, for `reason`; the client reconnects.
        case shutdown(reason: String)

        /// The event, if this is ``event(_:)``.
        public var message: Message? {
            if case .event(let message) = self { return message }
            return nil
        }
    }
}

extension EventSource.Event {
    /// The typed value of a Sluice control event, or `.event(message)`.
    init(recognizing message: EventSource.Message) {
        switch message.event {
        case "reset":
            if message.data == #"{"missed":null}"# {
                self = .reset(missed: nil)
                return
            }
            if let missed = Self.number(in: message.data, key: "missed") {
                self = .reset(missed: missed)
                return
            }
        case "dropped":
            if let count = Self.number(in: message.data, key: "dropped") {
                self = .dropped(count: count)
                return
            }
        case "shutdown":
            self = .shutdown(reason: message.data)
            return
        default:
            break
        }
        self = .event(message)
    }

    /// `n` in `{"key":n}` (spaces allowed around the tokens), or `nil`.
    private static func number(in data: String, key: String) -> Int? {
        var rest = Substring(data).drop(while: \.isWhitespace)
        for token in ["{", "\"\(key)\"", ":"] {
            guard rest.hasPrefix(token) else { return nil }
            rest = rest.dropFirst(token.count).drop(while: \.isWhitespace)
        }
        let digits = rest.prefix(while: \.isASCIIDigit)
        rest = rest.dropFirst(digits.count).drop(while: \.isWhitespace)
        guard rest == "}", let value = Int(digits) else { return nil }
        return value
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
