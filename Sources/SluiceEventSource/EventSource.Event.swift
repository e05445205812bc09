import Foundation

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
    /// On a stream of several topics (``EventSource/init(url:topics:configuration:session:onConnectionEvent:)``,
    /// ``EventSocket/init(url:topics:configuration:session:onConnectionEvent:)``) a `reset` or a
    /// `dropped` concerns one topic, and its data names it — `{"topic":"b","missed":n}`,
    /// `{"topic":"b","dropped":n}`: those are ``topicReset(topic:missed:)`` and
    /// ``topicDropped(topic:count:)``; the other topics' streams go on untouched. An
    /// ``EventSocket`` of topics also publishes ``topicRefused(topic:reason:)``.
    ///
    /// **Why new cases.** The topic is not added to ``reset(missed:)`` and ``dropped(count:)``:
    /// a second associated value would break every pattern that matches them
    /// (`case .reset(let missed)`, `case .dropped(count: let n)`). A stream of one topic never
    /// publishes the new cases, so code written for one topic gets exactly what it got before;
    /// only a `switch` without `default` must name them (the compiler says where). ``topic``
    /// reads the topic of any event.
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
        /// On a stream of several topics: the server could not resume `topic` where the client
        /// asked: `missed` of its events were lost (`nil`: an unknown number), and it continues
        /// from the present. Rebuild what depends on that topic's events; the other topics are
        /// untouched.
        case topicReset(topic: String, missed: Int?)
        /// On a stream of several topics: the server dropped `count` events of `topic` for this
        /// client because it read too slowly.
        case topicDropped(topic: String, count: Int)
        /// On an ``EventSocket`` of topics: the server refused to follow `topic` (one the client
        /// may not follow, one over the socket's limit), or a message of the client's (`topic`
        /// `nil`), for `reason`. A refused topic is no longer subscribed to.
        case topicRefused(topic: String?, reason: String)

        /// The event, if this is ``event(_:)``.
        public var message: Message? {
            if case .event(let message) = self { return message }
            return nil
        }

        /// The topic this concerns, on a stream of several topics: an event's
        /// ``Message/topic``, or the topic a reset, a drop or a refusal names (`nil` otherwise).
        public var topic: String? {
            switch self {
            case .event(let message): message.topic
            case .topicReset(let topic, _), .topicDropped(let topic, _): topic
            case .topicRefused(let topic, _): topic
            case .reset, .dropped, .shutdown: nil
            }
        }
    }
}

extension EventSource.Event {
    /// The typed value of a Sluice control event, or `.event(message)`.
    init(recognizing message: EventSource.Message) {
        if ["reset", "dropped", "refused"].contains(message.event), message.data.contains("\"topic\""),
           let control = Self.topicControl(message) {
            self = control
            return
        }
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

    /// A control event of a stream of several topics: `reset` with `{"topic":"…","missed":n|null}`,
    /// `dropped` with `{"topic":"…","dropped":n}`, `refused` with `{"topic":"…"|null,"reason":"…"}`.
    private static func topicControl(_ message: EventSource.Message) -> Self? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(message.data.utf8))) as? [String: Any] else { return nil }
        let topic = object["topic"] as? String
        switch message.event {
        case "reset":
            guard let topic, object.count == 2 else { return nil }
            if object["missed"] is NSNull { return .topicReset(topic: topic, missed: nil) }
            guard let missed = integer(object["missed"]) else { return nil }
            return .topicReset(topic: topic, missed: missed)
        case "dropped":
            guard let topic, object.count == 2, let count = integer(object["dropped"]) else { return nil }
            return .topicDropped(topic: topic, count: count)
        case "refused":
            guard topic != nil || object["topic"] is NSNull, object.count == 2, let reason = object["reason"] as? String else { return nil }
            return .topicRefused(topic: topic, reason: reason)
        default:
            return nil
        }
    }

    /// A JSON number that is a non-negative `Int`.
    private static func integer(_ value: Any?) -> Int? {
        guard let number = value as? Int, number >= 0 else { return nil }
        return number
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
