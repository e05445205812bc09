import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import SluiceFeed
import Testing

/// Sockets of topics (Hummingbird's and Vapor's `WebSocketTopics`) with hummingbird-websocket's own
/// client, on loopback: topics subscribed to and left while events flow, each topic's events once,
/// the topic limit and an unreadable message refused, a topic resumed after an id, a reset that
/// says where the topic now stands.
extension OverLoopback {
@Suite(.timeLimit(.minutes(2)))
struct SocketTopicsTests {
    /// A socket client whose messages are sent as the test says, recording what it receives.
    final class SocketClient: Sendable {
        let received = NIOLockedValueBox<[String]>([])
        private let outgoing: AsyncStream<String>.Continuation
        private let task: Task<Void, Never>

        init(port: Int, query: String) {
            let (messages, outgoing) = AsyncStream<String>.makeStream()
            self.outgoing = outgoing
            var logger = Logger(label: "ws-client")
            logger.logLevel = .warning
            let received = received
            task = Task { [logger] in
                _ = try? await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/topics\(query)", logger: logger) { inbound, outbound, _ in
                    let sending = Task { for await text in messages { try? await outbound.write(.text(text)) } }
                    defer { sending.cancel() }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { received.withLockedValue { $0.append(text) } }
                    }
                }
            }
        }

        func send(_ text: String) { outgoing.yield(text) }
        var messages: [String] { received.withLockedValue { $0 } }
        /// The events received, as (topic, data).
        var events: [(topic: String, data: String, id: String)] {
            messages.compactMap { text in
                guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      let topic = object["topic"] as? String, let data = object["data"] as? String, let id = object["id"] as? String
                else { return nil }
                return (topic, data, id)
            }
        }
        func data(of topic: String) -> [String] { events.filter { $0.topic == topic }.map(\.data) }
        func cancel() {
            outgoing.finish()
            task.cancel()
        }
    }

    @Test(arguments: Transport.allCases) func aSocketSubscribesAndUnsubscribesWhileEventsFlow(transport: Transport) async throws {
        let topics = TopicFeeds(["a", "b", "c"])
        let endpoints = Endpoints(topics: SocketTopics(sockets: FeedSocketTopics(maximumTopics: 2), feeds: topics))
        try await withFeedServer(transport, endpoints) { port, _ in
            let client = SocketClient(port: port, query: "?topic=a")
            #expect(await waitUntil { topics.feeds["a"]!.stats.connectedClients == 1 })
            for i in 1...3 { topics.send("a", "a\(i)"); topics.send("b", "b\(i)") }
            #expect(await waitUntil { client.data(of: "a").count == 3 })
            client.send("{\"subscribe\":\"b\"}")
            #expect(await waitUntil { topics.feeds["b"]!.stats.connectedClients == 1 })
            for i in 4...6 { topics.send("a", "a\(i)"); topics.send("b", "b\(i)") }
            #expect(await waitUntil { client.data(of: "a").count == 6 && client.data(of: "b").count == 3 })
            // A third topic is over this socket's limit; an unknown one is refused with its reason.
            client.send("{\"subscribe\":\"c\"}")
            client.send("not json")
            #expect(await waitUntil { client.messages.filter { $0.contains("\"refused\"") }.count == 2 })
            #expect(topics.feeds["c"]!.stats.connectedClients == 0)
            client.send("{\"unsubscribe\":\"a\"}")
            #expect(await waitUntil { topics.feeds["a"]!.stats.connectedClients == 0 })
            // From b, subscribed again after an id: what it missed, once.
            let lastOfB = try #require(client.events.last { $0.topic == "b" }?.id)
            client.send("{\"unsubscribe\":\"b\"}")
            #expect(await waitUntil { topics.feeds["b"]!.stats.connectedClients == 0 })
            for i in 7...8 { topics.send("a", "a\(i)"); topics.send("b", "b\(i)") }
            client.send("{\"subscribe\":\"b\",\"after\":\"\(lastOfB)\"}")
            client.send("{\"subscribe\":\"c\"}")
            #expect(await waitUntil { client.data(of: "b").count == 5 && topics.feeds["c"]!.stats.connectedClients == 1 })
            topics.send("c", "c1")
            topics.send("a", "a9")
            #expect(await waitUntil { client.data(of: "c") == ["c1"] })
            #expect(client.data(of: "a") == (1...6).map { "a\($0)" })   // nothing of a after it left
            #expect(client.data(of: "b") == (4...8).map { "b\($0)" })   // 4–6 live, 7–8 on resuming, none twice
            #expect(client.messages.contains("{\"event\":\"unsubscribed\",\"topic\":\"a\"}"))
            // Subscribed again after an id of another epoch: c is reset, with the id where it
            // now stands (its feed's last event), to subscribe after on the next socket.
            client.send("{\"unsubscribe\":\"c\"}")
            #expect(await waitUntil { topics.feeds["c"]!.stats.connectedClients == 0 })
            client.send("{\"subscribe\":\"c\",\"after\":\"other-3\"}")
            let reset = "{\"event\":\"reset\",\"topic\":\"c\",\"id\":\"\(topics.feeds["c"]!.lastEventID)\",\"missed\":null}"
            #expect(await waitUntil { client.messages.contains(reset) })
            client.cancel()
        }
    }
}
}
