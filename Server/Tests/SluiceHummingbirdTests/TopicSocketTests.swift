import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOConcurrencyHelpers
import Sluice
import SluiceEventSource
import SluiceFeed
import SluiceHummingbird
import Testing

extension OverLoopback {
    /// A topic's WebSocket route with `FeedWebSocketRequestContext.upgrade(_:feed:)`, read by
    /// SluiceEventSource's `EventSocket` over real sockets: a feed that cannot be had for now is
    /// retried by the client until it can, a topic outside the rule is refused for good, and a
    /// client that loses its connection resumes after its last event.
    @Suite struct TopicSocketTests {
        struct Refused: FeedRefusing {
            let feedRefusal: FeedRefusal
        }

        @Test func aFeedUnavailableForNowIsRetriedAndATopicOutsideTheRuleIsRefused() async throws {
            let subject = PassthroughSubject<ServerSentEvent, Never>()
            let feed = EventFeed(subject)
            let asked = NIOLockedValueBox(0)
            // The feed of "news" cannot be had for its first three requests (its log unreachable).
            let feeds: @Sendable (String) async throws -> EventFeed<ServerSentEvent> = { topic in
                guard topic == "news" else { throw Refused(feedRefusal: .invalid) }
                guard asked.withLockedValue({ $0 += 1; return $0 }) > 3 else { throw Refused(feedRefusal: .unavailable) }
                return feed
            }
            let sockets = Router(context: FeedWebSocketRequestContext.self)
            sockets.ws("ws/:topic", shouldUpgrade: { request, context in
                try await context.upgrade(request) { try await feeds(try context.parameters.require("topic")) }
            }) { inbound, outbound, context in
                let feed = try await feeds(try context.requestContext.parameters.require("topic"))
                let socket = WebSocketFeed(feed: feed) { id, event in .text("{\"id\":\"\(id)\",\"data\":\"\(event.data)\"}") }
                try await socket.serve(inbound: inbound, outbound: outbound, context: context)
            }
            try await withServer(Router(), server: .http1WebSocketUpgrade(webSocketRouter: sockets)) { port, _ in
                let quick = EventSource.Configuration(reconnectionTime: .milliseconds(20), maximumBackoff: .milliseconds(200))
                // Outside the rule: 400, the end.
                await #expect(throws: EventSourceError.status(400)) {
                    for try await _ in EventSocket(url: URL(string: "ws://127.0.0.1:\(port)/ws/Bad%20Name")!, configuration: quick).events {}
                }
                // Unavailable, then available: the client retries (101, then a close 1011 from the
                // handler; or 101 without a start) until it reads the feed.
                let received = NIOLockedValueBox<[EventSource.Event]>([])
                let reading = Task {
                    for try await event in EventSocket(url: URL(string: "ws://127.0.0.1:\(port)/ws/news")!, configuration: quick).events {
                        received.withLockedValue { $0.append(event) }
                    }
                }
                #expect(await waitUntil { feed.stats.connectedClients == 1 })
                for n in 1...3 { subject.send(ServerSentEvent(data: "story \(n)")) }
                #expect(await waitUntil { received.withLockedValue { $0.count } == 3 })
                #expect(received.withLockedValue { $0 }.compactMap(\.message?.data) == ["story 1", "story 2", "story 3"])
                #expect(asked.withLockedValue { $0 } >= 4)
                reading.cancel()
                _ = await reading.result
            }
        }
    }
}
