#if Server
import NIOCore
import NIOPosix
import Sluice

/// How a client's stream of an ``EventFeed`` behaves, whatever carries it: the options of a
/// ``FeedSocketStream``, and those of a ``ServerSentEventStream`` beside its `retry:` and heartbeats.
public struct FeedStreamOptions: Sendable {
    /// The policy for this endpoint's slow clients; `nil`: the feed's.
    public var policy: SlowClientPolicy?
    /// How long a stream may take to write its last events after shutdown began (5 s).
    public var shutdownGrace: Duration
    /// How many events a client has requested at most while its writes are in flight (16).
    public var window: Int
    /// Where the shutdown timer runs.
    public var eventLoopGroup: any EventLoopGroup

    /// Options for a stream.
    public init(policy: SlowClientPolicy? = nil, shutdownGrace: Duration = .seconds(5), window: Int = 16,
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        precondition(window > 0, "window must be positive")
        self.policy = policy
        self.shutdownGrace = shutdownGrace
        self.window = window
        self.eventLoopGroup = eventLoopGroup
    }
}

/// A message of a feed's WebSocket stream: a text or a binary message.
public enum FeedSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(ByteBuffer)
}

extension FeedSocketMessage {
    /// An event of a feed of ``ServerSentEvent``s as every Sluice socket sends it: a text message
    /// `{"id":"<epoch>-<position>","data":"…"}`, with `"topic":"…"` first on a socket of topics.
    public static func event(id: EventID, data: String, topic: String? = nil) -> FeedSocketMessage {
        var text = "{"
        if let topic { text += "\"topic\":" + jsonString(topic) + "," }
        text += "\"id\":\"\(id)\",\"data\":" + jsonString(data) + "}"
        return .text(text)
    }

    /// A feed's control messages as every Sluice socket sends them, with `"topic":"…"` after the
    /// event's name on a socket of topics: `{"event":"dropped","dropped":n}`,
    /// `{"event":"reset","id":"<epoch>-<position>","missed":n}` (`null` when unknown: the `id` is
    /// where the client now stands, to resume after, not before the break) and
    /// `{"event":"shutdown","reason":"…"}`; `nil` for an event.
    package static func control(_ message: ClientMessage, topic: String? = nil) -> FeedSocketMessage? {
        var text = "{\"event\":"
        switch message {
        case .event:
            return nil
        case .dropped(let count, _):
            text += "\"dropped\","
            if let topic { text += "\"topic\":" + jsonString(topic) + "," }
            text += "\"dropped\":\(count)}"
        case .reset(let gap, _):
            text += "\"reset\","
            if let topic { text += "\"topic\":" + jsonString(topic) + "," }
            text += "\"id\":\"\(gap.eventID)\",\"missed\":\(gap.missed.map(String.init) ?? "null")}"
        case .shutdown(let reason):
            text += "\"shutdown\",\"reason\":" + jsonString(reason) + "}"
        }
        return .text(text)
    }
}

extension FeedSocketStream where Output == ServerSentEvent {
    /// Serves `feed`, each event as ``FeedSocketMessage/event(id:data:topic:)``:
    /// `{"id":"<epoch>-<position>","data":"…"}`.
    public init(feed: EventFeed<ServerSentEvent>, options: Options = Options()) {
        self.init(feed: feed, options: options) { id, event in .event(id: id, data: event.data) }
    }
}

/// An ``EventFeed`` as WebSocket messages for any server: each client's messages, sent through a
/// closure the transport gives. SluiceHummingbird's `WebSocketFeed` and SluiceVapor's are this
/// with their framework's socket.
///
/// Each event is one message from ``encode`` (its id, to let clients resume, and its value).
/// What SSE says with named events is said with text messages of JSON:
/// `{"event":"dropped","dropped":n}`, `{"event":"reset","id":"<epoch>-<position>","missed":n}` (`null` when unknown),
/// `{"event":"shutdown","reason":"…"}`.
public struct FeedSocketStream<Output: Sendable>: Sendable {
    /// How each client's stream behaves.
    public typealias Options = FeedStreamOptions

    /// The feed served.
    public let feed: EventFeed<Output>
    /// How each client's stream behaves.
    public let options: Options
    /// The message for each event.
    public let encode: @Sendable (_ id: EventID, _ value: Output) -> FeedSocketMessage

    /// Serves `feed`, each event as the message `encode` makes of it.
    public init(feed: EventFeed<Output>, options: Options = Options(),
                encode: @escaping @Sendable (_ id: EventID, _ value: Output) -> FeedSocketMessage) {
        self.feed = feed
        self.options = options
        self.encode = encode
    }

    /// The close code of a connection refused because the feed serves as many clients as it may
    /// (``EventFeed/Options/maximumClients``): 1013, try again later.
    public static var tryAgainLater: UInt16 { 1013 }
    /// The close reason sent with ``tryAgainLater``.
    public static var fullReason: String { "the feed serves as many clients as it may; try again later" }

    /// A new client of the feed from `start` (its `lastEventId`: `ResumePoint(lastEventID:)`);
    /// with `filter`, it gets only the events it accepts. The client joins the feed at once:
    /// ``FeedSocketClient/run(send:)`` must follow (or ``FeedSocketClient/end()``).
    public func client(from start: ResumePoint = .live, filter: (@Sendable (Output) -> Bool)? = nil) -> FeedSocketClient<Output> {
        FeedSocketClient(stream: self, start: start, filter: filter)
    }
}

/// One client of a ``FeedSocketStream``: its messages, sent by ``run(send:)``.
///
/// Demand and ends as for ``ServerSentEventClient``: at most ``FeedStreamOptions/window``
/// events requested, more once `send` of the previous ones has returned; ``run(send:)`` returns
/// after the shutdown message once the feed finished (the transport then sends a close frame),
/// and throws a ``FeedStreamStop`` when the connection is to be dropped at once.
public final class FeedSocketClient<Output: Sendable>: Sendable {
    private let stream: FeedSocketStream<Output>
    private let filter: (@Sendable (Output) -> Bool)?
    private let outlet: ClientOutlet

    init(stream: FeedSocketStream<Output>, start: ResumePoint, filter: (@Sendable (Output) -> Bool)?) {
        self.stream = stream
        self.filter = filter
        outlet = stream.feed.connect(from: start, options: stream.options, heartbeat: nil)
    }

    /// Sends the stream's messages through `send` until it ends, then ends the client. `send` is
    /// called from one task at a time, each call after the previous one returned; an error it
    /// throws ends the stream with that error.
    public func run(send: @escaping @Sendable (FeedSocketMessage) async throws -> Void) async throws {
        try await outlet.serve { [self] outlet in
            while true {
                switch await outlet.next() {
                case .write(let messages):
                    for message in messages {
                        if let encoded = encoded(message) { try await send(encoded) }
                    }
                    outlet.wrote(messages)
                case .heartbeat, .nudge:
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

    /// This client alone shuts down: what is buffered, the shutdown message, then ``run(send:)``
    /// returns (or throws ``FeedStreamStop/shutdownTimedOut`` after the grace period).
    public func shutDown() {
        outlet.shutDown()
    }

    /// Leaves the feed without running (``run(send:)`` does it itself when it returns).
    public func end() {
        outlet.end()
    }

    private func encoded(_ message: ClientMessage) -> FeedSocketMessage? {
        switch message {
        case .event(let event, _):
            let value = event.value(as: Output.self)
            if let filter, !filter(value) { return nil }
            return stream.encode(event.eventID, value)
        case .dropped, .reset, .shutdown:
            return .control(message)
        }
    }
}

/// `text` as a JSON string literal.
package func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
#endif
