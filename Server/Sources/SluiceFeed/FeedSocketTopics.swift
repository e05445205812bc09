#if Server
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Several topics' feeds on one WebSocket per client, for any server: topics subscribed to and
/// unsubscribed from while the socket is open, each message naming its topic and its id.
///
/// The client sends text messages of JSON:
/// - `{"subscribe":"<topic>"}` — follow the topic from now; with `"after":"<id>"`, from after that
///   event of it (the id of its last message the client got, on any instance): what it missed,
///   then live events, or `reset` first when those are gone.
/// - `{"unsubscribe":"<topic>"}` — stop following it.
///
/// The server sends each event as ``encode`` makes it — for feeds of ``ServerSentEvent``s,
/// `{"topic":"…","id":"<epoch>-<position>","data":"…"}` — and text messages of JSON for the rest:
/// `{"event":"subscribed","topic":"…"}`, `{"event":"unsubscribed","topic":"…"}`,
/// `{"event":"refused","topic":"…","reason":"…"}` (a topic it may not follow, a topic over
/// ``maximumTopics``, a message it cannot read: `"topic":null`), `{"event":"reset","topic":"…","id":"…","missed":n}` (`id`: where the topic now stands),
/// `{"event":"dropped","topic":"…","dropped":n}`, `{"event":"shutdown","reason":"…"}`.
///
/// Demand, the policy and the ends are those of a ``FeedSocketStream``'s client, for the socket as a
/// whole: each topic at most the window's messages in flight, and one buffer under one
/// ``SlowClientPolicy`` across its topics (as ``ServerSentEventTopics``).
public struct FeedSocketTopics<Output: Sendable>: Sendable {
    /// How each client's stream behaves.
    public let options: FeedStreamOptions
    /// The most topics one socket may follow at once (100).
    public let maximumTopics: Int
    /// The message for each event of a topic.
    public let encode: @Sendable (_ topic: String, _ id: EventID, _ value: Output) -> FeedSocketMessage

    /// Sockets of topics, each event as the message `encode` makes of it.
    public init(options: FeedStreamOptions = .init(), maximumTopics: Int = 100,
                encode: @escaping @Sendable (_ topic: String, _ id: EventID, _ value: Output) -> FeedSocketMessage) {
        precondition(maximumTopics > 0, "maximumTopics must be positive")
        self.options = options
        self.maximumTopics = maximumTopics
        self.encode = encode
    }

    /// Sockets of topics of ready-encoded events, each a text message
    /// `{"topic":"…","id":"<epoch>-<position>","data":"…"}`.
    public init(options: FeedStreamOptions = .init(), maximumTopics: Int = 100) where Output == ServerSentEvent {
        self.init(options: options, maximumTopics: maximumTopics) { topic, id, event in
            .event(id: id, data: event.data, topic: topic)
        }
    }

    /// A new client that follows the topics it subscribes to, each found by `topic`: the topic's
    /// feed, from the start it is given (fix it with ``EventFeed/fixing(_:)``), and its filter — or
    /// an error when the client may not follow it (its description is the refusal's reason).
    public func client(topic: @escaping @Sendable (_ name: String, _ start: ResumePoint) async throws -> FeedTopic<Output>)
        -> FeedSocketTopicsClient<Output> {
        FeedSocketTopicsClient(topics: self, lookup: topic)
    }
}

/// One client of ``FeedSocketTopics``: its socket's topics, and their messages, sent by
/// ``run(send:)``.
public final class FeedSocketTopicsClient<Output: Sendable>: Sendable {
    private struct Followed {
        var name: String
        var filter: (@Sendable (Output) -> Bool)?
    }

    private struct State {
        var next: Int32 = 0
        /// The topics followed, by their index on the outlet.
        var followed: [Int32: Followed] = [:]
        /// The topics being subscribed to (their feeds are looked up).
        var joining: Set<String> = []
        /// What the client is to be told, besides its topics' messages.
        var notices: [FeedSocketMessage] = []
    }

    private let topics: FeedSocketTopics<Output>
    private let lookup: @Sendable (String, ResumePoint) async throws -> FeedTopic<Output>
    private let outlet: ClientOutlet
    private let state = NIOLockedValueBox(State())

    init(topics: FeedSocketTopics<Output>, lookup: @escaping @Sendable (String, ResumePoint) async throws -> FeedTopic<Output>) {
        self.topics = topics
        self.lookup = lookup
        outlet = ClientOutlet(window: topics.options.window, heartbeat: nil, shutdownGrace: TimeAmount(topics.options.shutdownGrace),
                              eventLoop: topics.options.eventLoopGroup.any(), topicSet: true)
    }

    /// The names of the topics the socket follows now.
    public var followedTopics: Set<String> {
        Set(state.withLockedValue { $0.followed.values.map(\.name) })
    }

    /// Reads one text message of the client's (`subscribe` or `unsubscribe`) and does what it asks;
    /// a message it cannot read is answered with `refused`.
    public func receive(text: String) async {
        switch FeedSocketCommand(text) {
        case .subscribe(let name, let start):
            await subscribe(name, from: start)
        case .unsubscribe(let name):
            unsubscribe(name)
        case nil:
            notify(.text("{\"event\":\"refused\",\"topic\":null,\"reason\":\"not a message of this socket: send {\\\"subscribe\\\":\\\"<topic>\\\"} or {\\\"unsubscribe\\\":\\\"<topic>\\\"}\"}"))
        }
    }

    /// Follows `name` from `start` (``ResumePoint/live``: from now): `subscribed`, then its
    /// messages; `refused` when it is followed already, over ``FeedSocketTopics/maximumTopics``, or
    /// its lookup throws.
    public func subscribe(_ name: String, from start: ResumePoint = .live) async {
        let refusal = state.withLockedValue { state -> String? in
            if state.joining.contains(name) || state.followed.values.contains(where: { $0.name == name }) {
                return "already followed"
            }
            if state.followed.count + state.joining.count >= topics.maximumTopics {
                return "a socket follows at most \(topics.maximumTopics) topics"
            }
            state.joining.insert(name)
            return nil
        }
        if let refusal { return refuse(name, refusal) }
        let topic: FeedTopic<Output>
        do {
            topic = try await lookup(name, start)
        } catch {
            state.withLockedValue { _ = $0.joining.remove(name) }
            return refuse(name, "\(error)")
        }
        let index = state.withLockedValue { state -> Int32 in
            state.joining.remove(name)
            defer { state.next += 1 }
            state.followed[state.next] = Followed(name: name, filter: topic.filter)
            return state.next
        }
        notify(.text("{\"event\":\"subscribed\",\"topic\":\(jsonString(name))}"))
        outlet.join(topic.feed, topic: index, from: topic.start, policy: topics.options.policy)
    }

    /// Stops following `name`: `unsubscribed`; nothing more of it is sent.
    public func unsubscribe(_ name: String) {
        let index = state.withLockedValue { state -> Int32? in
            guard let index = state.followed.first(where: { $0.value.name == name })?.key else { return nil }
            state.followed[index] = nil
            return index
        }
        guard let index else { return refuse(name, "not followed") }
        outlet.leave(topic: index)
        notify(.text("{\"event\":\"unsubscribed\",\"topic\":\(jsonString(name))}"))
    }

    /// Sends the socket's messages through `send` until it ends, then ends the client: as
    /// ``FeedSocketClient/run(send:)``.
    public func run(send: @escaping @Sendable (FeedSocketMessage) async throws -> Void) async throws {
        try await outlet.serve { [self] outlet in
            while true {
                let step = await outlet.next()
                for notice in takeNotices() { try await send(notice) }
                switch step {
                case .nudge:
                    break   // the notices, sent above
                case .write(let messages):
                    for message in messages {
                        if let encoded = encoded(message) { try await send(encoded) }
                    }
                    outlet.wrote(messages)
                case .heartbeat:
                    break
                case .finish:
                    return
                case .stop(let reason):
                    throw reason
                }
            }
        }
    }

    /// The peer closed its side: ``run(send:)`` throws ``FeedStreamStop/peerClosed`` at once.
    public func peerClosed() {
        outlet.stop(.peerClosed)
    }

    /// This client alone shuts down, as ``FeedSocketClient/shutDown()``.
    public func shutDown() {
        outlet.shutDown()
    }

    /// Leaves every feed without running (``run(send:)`` does it itself when it returns).
    public func end() {
        outlet.end()
    }

    private func refuse(_ name: String, _ reason: String) {
        notify(.text("{\"event\":\"refused\",\"topic\":\(jsonString(name)),\"reason\":\(jsonString(reason))}"))
    }

    /// Queues a notice for the writer and wakes it.
    private func notify(_ notice: FeedSocketMessage) {
        state.withLockedValue { $0.notices.append(notice) }
        outlet.nudge()
    }

    private func takeNotices() -> [FeedSocketMessage] {
        state.withLockedValue { state in
            defer { state.notices = [] }
            return state.notices
        }
    }

    private func encoded(_ message: ClientMessage) -> FeedSocketMessage? {
        let name = message.topic.flatMap { topic in state.withLockedValue { $0.followed[topic] } }
        switch message {
        case .event(let event, _):
            guard let name else { return nil }   // unsubscribed meanwhile
            let value = event.value(as: Output.self)
            if let filter = name.filter, !filter(value) { return nil }
            return topics.encode(name.name, event.eventID, value)
        case .dropped, .reset:
            guard let name else { return nil }
            return .control(message, topic: name.name)
        case .shutdown:
            return .control(message)
        }
    }
}

/// A message a socket of topics reads: `{"subscribe":"<topic>"[,"after":"<id>"]}` or
/// `{"unsubscribe":"<topic>"}`.
enum FeedSocketCommand: Equatable {
    case subscribe(String, ResumePoint)
    case unsubscribe(String)

    init?(_ text: String) {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)), let fields = parsed as? [String: Any] else { return nil }
        let object = fields.compactMapValues { $0 as? String }
        guard object.count == fields.count else { return nil }
        if let topic = object["subscribe"], object["unsubscribe"] == nil {
            self = .subscribe(topic, ResumePoint(lastEventID: object["after"]))
        } else if let topic = object["unsubscribe"], object["subscribe"] == nil {
            self = .unsubscribe(topic)
        } else {
            return nil
        }
    }
}
#endif
