#if Hummingbird
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import SluiceFeed

/// Several topics on one WebSocket per client, served by hummingbird-websocket: the client
/// subscribes to topics and unsubscribes from them while its socket is open, and every message
/// names its topic and id (``/SluiceFeed/FeedSocketTopics`` says what each side sends).
///
/// ```swift
/// let sockets = WebSocketTopics<ServerSentEvent>()
/// router.ws("ws") { inbound, outbound, context in
///     try await sockets.serve(inbound: inbound, outbound: outbound,
///                             following: TopicEventStreams<ServerSentEvent>.topics(of: context.request)) { name, start in
///         let feed = try await feeds.feed(of: name)
///         return FeedTopic(name, feed: feed, from: feed.fixing(start))
///     }
/// }
/// ```
public struct WebSocketTopics<Output: Sendable>: Sendable {
    /// The transport-neutral sockets served.
    public let topics: FeedSocketTopics<Output>

    /// Serves `topics`.
    public init(topics: FeedSocketTopics<Output>) {
        self.topics = topics
    }

    /// Sockets of topics of ready-encoded events, each a text message
    /// `{"topic":"…","id":"<epoch>-<position>","data":"…"}`.
    public init(options: FeedStreamOptions = .init(), maximumTopics: Int = 100) where Output == ServerSentEvent {
        topics = FeedSocketTopics(options: options, maximumTopics: maximumTopics)
    }

    /// Serves one socket until either side closes it or the feeds finish: subscribes to
    /// `initial` topics from now, then reads the client's messages (at most `maxMessageSize`
    /// bytes each) as subscriptions and unsubscriptions, each topic found by `topic` — which throws
    /// for a topic the client may not follow (its description is the refusal's reason).
    public func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, following initial: [String] = [],
                      maxMessageSize: Int = 64 << 10,
                      topic: @escaping @Sendable (_ name: String, _ start: ResumePoint) async throws -> FeedTopic<Output>) async throws {
        let client = topics.client(topic: topic)
        for name in initial { await client.subscribe(name) }
        let messages = inbound.messages(maxSize: maxMessageSize)
        var failure: (any Error)?
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await sendMessages(of: client.run, to: outbound) }
                group.addTask {
                    do {
                        for try await message in messages {
                            if case .text(let text) = message { await client.receive(text: text) }
                        }
                    } catch {}
                    client.peerClosed()
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            failure = error
        }
        client.end()
        if let failure { throw failure }
    }
}
#endif
