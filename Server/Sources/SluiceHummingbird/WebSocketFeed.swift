#if Hummingbird
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOPosix
import ServiceLifecycle
import Sluice

/// An ``/SluiceFeed/EventFeed`` served over WebSocket: each connection a client of the feed with its own
/// demand, buffer and ``/SluiceFeed/SlowClientPolicy``, its events out as text or binary messages; the
/// client's own messages in as a publisher.
///
/// ```swift
/// let chat = WebSocketFeed(feed: feed)                      // EventFeed<String>: text messages
/// let wsRouter = Router(context: FeedWebSocketRequestContext.self)
/// wsRouter.ws("chat", shouldUpgrade: chat.shouldUpgrade) { inbound, outbound, context in
///     try await chat.serve(inbound: inbound, outbound: outbound, context: context) { incoming in
///         incoming.sink(receiveCompletion: { _ in }) { message in post(message) }
///     }
/// }
/// ```
///
/// The connection is served once its upgrade has been answered: ``shouldUpgrade(_:context:)``
/// fixes the client's start before that (the client's `lastEventId`, or the feed's latest event for
/// a new client), so that a client that sends or causes an event as soon as its socket opens gets
/// it. Served from an explicit start instead, a new client joins when `serve` runs.
///
/// - **Out**: each event is one message from `encode` (for `String` feeds: the text; for
///   `ByteBuffer` feeds: the bytes as a binary message). What SSE says with named events is said
///   with text messages of JSON: `{"event":"dropped","dropped":n}`,
///   `{"event":"reset","id":"<epoch>-<position>","missed":n}` (`null` when unknown; `id` is where
///   the client now stands), `{"event":"shutdown","reason":"…"}`. A client at most
///   ``/SluiceFeed/FeedStreamOptions/window`` events requested; more only when the writes of the
///   previous ones have completed (the writer waits while the channel is not writable).
/// - **In**: the client's messages as a publisher that reads the next message from the socket
///   only when its subscriber has demand; it finishes when the client closes, fails on a
///   protocol error or a message over `maxMessageSize`.
/// - **Refused**: a feed that serves as many clients as it may
///   (``/SluiceFeed/EventFeed/Options/maximumClients``) closes the new connection at once with
///   code 1013 (try again later) — a browser's `WebSocket` sees the close code, never an HTTP status.
/// - **Ends**: as for ``ServerSentEvents``: the policy's disconnect and a shutdown outlasted by a
///   stalled client end the connection at once; ``/SluiceFeed/EventFeed/finish(reason:)`` sends the shutdown
///   message, then a close frame (`going away`). On the server's graceful shutdown
///   hummingbird-websocket itself sends a close frame as well, so the shutdown message may not
///   reach a client first there.
public struct WebSocketFeed<Output: Sendable>: Sendable {
    /// The transport-neutral stream each connection sends.
    public let stream: FeedSocketStream<Output>
    /// The feed served.
    public var feed: EventFeed<Output> { stream.feed }
    /// How each connection behaves (WebSocket has its own pings: no heartbeats).
    public var options: FeedStreamOptions { stream.options }

    /// Serves `stream` (shared with other endpoints, or other frameworks).
    public init(stream: FeedSocketStream<Output>) {
        self.stream = stream
    }

    /// Serves `feed`, each event as the message `encode` makes of it (its id, to let clients resume
    /// with `lastEventId`, and its value).
    public init(feed: EventFeed<Output>, options: FeedStreamOptions = .init(),
                encode: @escaping @Sendable (_ id: EventID, _ value: Output) -> WebSocketMessage) {
        stream = FeedSocketStream(feed: feed, options: options) { id, value in
            switch encode(id, value) {
            case .text(let text): .text(text)
            case .binary(let bytes): .binary(bytes)
            }
        }
    }

    /// Streams the feed to this connection's client, from `start` (a client's `lastEventId` query
    /// parameter: `ResumePoint(lastEventID: text)`), until the feed finishes, the client leaves or
    /// falls behind under a disconnecting policy. `incoming`, if given, gets the client's messages
    /// as a publisher; what it returns is kept until the connection ends, then cancelled (a
    /// subscription to it kept elsewhere must be cancelled by then too: the connection ends once
    /// the publisher's read of the socket has). With `filter`, the client gets only the events it
    /// accepts.
    public func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, from start: ResumePoint = .live,
                      maxMessageSize: Int = 1 << 20,
                      incoming: ((AnyPublisher<WebSocketMessage, any Error>) -> (any Cancellable)?)? = nil,
                      filter: (@Sendable (Output) -> Bool)? = nil) async throws {
        let client = stream.client(from: start, filter: filter)
        let messages = inbound.messages(maxSize: maxMessageSize)
        let reads = GatedReads(base: messages)
        var kept: (any Cancellable)?
        if let incoming {
            let publisher = reads.asPublisher
                .handleEvents(receiveCompletion: { _ in client.peerClosed() })
                .eraseToAnyPublisher()
            kept = incoming(publisher)
        }
        var failure: (any Error)?
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await sendMessages(of: client.run, to: outbound) }
                if incoming == nil {   // nobody reads the client's messages: read them here to see it leave
                    group.addTask {
                        do { for try await _ in messages {} } catch {}
                        client.peerClosed()
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            failure = error
        }
        client.end()
        // hummingbird-websocket reads the inbound stream itself once this returns: the incoming
        // publisher's read must have ended first.
        kept?.cancel()
        await reads.close()
        if let failure { throw failure }
    }
}

extension WebSocketFeed {
    /// A router's `shouldUpgrade` that fixes where the connection's client starts, so that a new
    /// client gets every event from the moment its upgrade is answered (see
    /// ``FeedWebSocketRequestContext``).
    @Sendable public func shouldUpgrade(_ request: Request, context: FeedWebSocketRequestContext) -> RouterShouldUpgrade {
        context.fixStart(of: request, in: feed)
        return .upgrade([:])
    }

    /// Serves the connection of an upgrade that ``shouldUpgrade(_:context:)`` answered, from the
    /// start it fixed; otherwise as ``serve(inbound:outbound:from:maxMessageSize:incoming:filter:)``
    /// from the request's `lastEventId`.
    public func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
                      context: WebSocketRouterContext<FeedWebSocketRequestContext>, maxMessageSize: Int = 1 << 20,
                      incoming: ((AnyPublisher<WebSocketMessage, any Error>) -> (any Cancellable)?)? = nil,
                      filter: (@Sendable (Output) -> Bool)? = nil) async throws {
        let start = context.requestContext.fixedStart
            ?? ResumePoint(lastEventID: context.request.uri.queryParameters["lastEventId"].map(String.init))
        try await serve(inbound: inbound, outbound: outbound, from: start, maxMessageSize: maxMessageSize,
                        incoming: incoming, filter: filter)
    }
}

extension WebSocketFeed where Output == String {
    /// Serves a feed of text, each event as a text message of its value.
    public init(feed: EventFeed<String>, options: FeedStreamOptions = .init()) {
        self.init(feed: feed, options: options) { _, text in .text(text) }
    }
}

extension WebSocketFeed where Output == ByteBuffer {
    /// Serves a feed of bytes, each event as a binary message of its value.
    public init(feed: EventFeed<ByteBuffer>, options: FeedStreamOptions = .init()) {
        self.init(feed: feed, options: options) { _, bytes in .binary(bytes) }
    }
}
extension WebSocketFeed where Output == ServerSentEvent {
    /// Serves a feed of ready-encoded events, each as the text message every Sluice socket sends:
    /// `{"id":"<epoch>-<position>","data":"…"}` (SluiceFeed's `FeedSocketMessage.event(id:data:topic:)`).
    public init(feed: EventFeed<ServerSentEvent>, options: FeedStreamOptions = .init()) {
        self.init(stream: FeedSocketStream(feed: feed, options: options))
    }
}
/// Sends a socket client's messages (`run`: its `run(send:)`) through `outbound` until its stream
/// ends, then closes the socket: 1013 (try again later) when its feed was full, 1001 (going away)
/// when the feed finished.
func sendMessages(of run: (@escaping @Sendable (FeedSocketMessage) async throws -> Void) async throws -> Void,
                  to outbound: WebSocketOutboundWriter) async throws {
    do {
        try await run { message in
            switch message {
            case .text(let text): try await outbound.write(.text(text))
            case .binary(let bytes): try await outbound.writeBinaryMessage(bytes)
            }
        }
    } catch FeedStreamStop.tooManyClients {
        return try await outbound.close(.unknown(FeedSocketStream<Never>.tryAgainLater), reason: FeedSocketStream<Never>.fullReason)
    }
    try await outbound.close(.goingAway, reason: "the feed has finished")
}
#endif
