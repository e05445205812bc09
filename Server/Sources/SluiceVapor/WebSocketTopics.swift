#if Vapor
import NIOCore
import SluiceFeed
import Vapor

/// Several topics on one Vapor WebSocket per client: the client subscribes to topics and
/// unsubscribes from them while its socket is open, and every message names its topic and id
/// (``/SluiceFeed/FeedSocketTopics`` says what each side sends; the same messages as
/// SluiceHummingbird's `WebSocketTopics`).
///
/// ```swift
/// let sockets = WebSocketTopics<ServerSentEvent>()
/// app.webSocket("ws") { request, socket in
///     sockets.serve(socket, following: TopicEventStreams<ServerSentEvent>.topics(of: request)) { name, start in
///         let feed = try await feeds.feed(of: name)
///         return FeedTopic(name, feed: feed, from: feed.fixing(start))
///     }
/// }
/// ```
///
/// Vapor hands the client's messages over as they arrive, without waiting: they are handled in
/// order, one at a time (a subscription waits for its topic's feed), and a client with more than
/// ``maximumPendingMessages`` not handled yet is closed with code 1008 (policy violation).
public struct WebSocketTopics<Output: Sendable>: Sendable {
    /// The transport-neutral sockets served.
    public let topics: FeedSocketTopics<Output>
    /// The most messages of a client waiting to be handled (64).
    public let maximumPendingMessages: Int
    /// How often each socket served is pinged (30 s), as ``WebSocketFeed/pingInterval``: a client
    /// that has not answered one ping by the next is closed; `nil`: no pings.
    public var pingInterval: TimeAmount? = .seconds(30)

    /// Serves `topics`.
    public init(topics: FeedSocketTopics<Output>, maximumPendingMessages: Int = 64) {
        precondition(maximumPendingMessages > 0, "maximumPendingMessages must be positive")
        self.topics = topics
        self.maximumPendingMessages = maximumPendingMessages
    }

    /// Sockets of topics of ready-encoded events, each a text message
    /// `{"topic":"…","id":"<epoch>-<position>","data":"…"}`.
    public init(options: FeedStreamOptions = .init(), maximumTopics: Int = 100, maximumPendingMessages: Int = 64)
        where Output == ServerSentEvent {
        self.init(topics: FeedSocketTopics(options: options, maximumTopics: maximumTopics), maximumPendingMessages: maximumPendingMessages)
    }

    /// Serves `socket` until either side closes it or the feeds finish: subscribes to `initial`
    /// topics from now, then reads the client's text messages as subscriptions and
    /// unsubscriptions, each topic found by `topic` — which throws for a topic the client may not
    /// follow (its description is the refusal's reason). Call it from Vapor's synchronous
    /// `webSocket` handler, which runs before any message is read; it returns at once (the socket
    /// is served by a task of its own) and closes the socket at the end (`going away` once the
    /// feeds finished).
    public func serve(_ socket: WebSocket, following initial: [String] = [],
                      topic: @escaping @Sendable (_ name: String, _ start: ResumePoint) async throws -> FeedTopic<Output>) {
        let client = topics.client(topic: topic)
        socket.ping(every: pingInterval)
        let (texts, pending) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(maximumPendingMessages))
        let listen: @Sendable () -> Void = {
            socket.onText { socket, text in
                guard case .dropped = pending.yield(text) else { return }
                pending.finish()
                socket.close(code: .policyViolation, promise: nil)
            }
        }
        // Called elsewhere than on the socket's event loop, the callback is set there a moment
        // later: a message arriving meanwhile is not seen.
        if socket.eventLoop.inEventLoop { listen() } else { socket.eventLoop.execute(listen) }
        socket.onClose.whenComplete { _ in
            pending.finish()
            client.peerClosed()
        }
        Task {
            for name in initial { await client.subscribe(name) }
            // Whether the feed was full (the socket is closed with 1013, try again later).
            let full = await withTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    do {
                        try await client.run(send: socket.send(feedMessage:))
                    } catch FeedStreamStop.tooManyClients {
                        return true
                    } catch {}
                    return false
                }
                group.addTask {
                    for await text in texts { await client.receive(text: text) }
                    return nil
                }
                // The client's messages end with its socket: the stream ends then too.
                var full = false
                while let next = await group.next() {
                    if let next {
                        full = next
                        group.cancelAll()
                    }
                }
                return full
            }
            client.end()
            if full {
                try? await socket.close(code: .unknown(FeedSocketStream<Output>.tryAgainLater))
            } else {
                try? await socket.close(code: .goingAway)
            }
        }
    }
}
#endif
