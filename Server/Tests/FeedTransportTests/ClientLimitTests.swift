import Metrics
import MetricsTestKit
import NIOCore
import Sluice
import SluiceFeed
import Testing

/// `EventFeed.Options.maximumClients` over HTTP: a feed that serves as many clients as it may
/// answers the next SSE request 503 with `Retry-After` before any stream, closes the next WebSocket
/// with 1013 (try again later) and counts it, and admits a client again once one has left.
extension OverLoopback {
@Suite(.timeLimit(.minutes(2)))
struct ClientLimitTests {
    @Test(arguments: Transport.allCases) func aFullFeedAnswers503UntilAClientLeaves(transport: Transport) async throws {
        let metrics = TestMetrics()
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject, options: .init(maximumClients: 2, name: "limited", metrics: metrics))
        let words = PassthroughSubject<String, Never>()
        let wordFeed = EventFeed(words, options: .init(maximumClients: 1, name: "words", metrics: metrics))
        // Heartbeats often: Vapor sees a client that left at the next write.
        let endpoints = Endpoints(events: ServerSentEventStream(feed: feed, options: .init(heartbeat: .milliseconds(200))),
                                  socket: FeedSocketStream(feed: wordFeed) { _, text in .text(text) })
        try await withFeedServer(transport, endpoints) { port, _ in
            let first = try await SSEClient.connect(port: port)
            let second = try await SSEClient.connect(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 2 })
            #expect(feed.isFull)

            let refused = try await SSEClient.connect(port: port)
            #expect(await waitUntil { refused.status != nil })
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers?["Retry-After"] == ["5"])
            #expect(await waitUntil { refused.ended })
            #expect(refused.frames.isEmpty)
            #expect(feed.stats.connectedClients == 2)

            let socket = WebSocketFeedTests.Client(port: port)
            #expect(await waitUntil { wordFeed.stats.connectedClients == 1 })
            // Refused right after its 101, read off the wire (a client library may lose a frame
            // that comes in the same read as the handshake's response).
            let refusedSocket = try await RawWebSocket.open(port: port, path: "/ws")
            #expect(await waitUntil { refusedSocket.closeCode != nil })
            #expect(refusedSocket.statusLine == "HTTP/1.1 101 Switching Protocols")
            #expect(refusedSocket.closeCode == 1013)
            #expect(refusedSocket.opcodes == [0x8])   // nothing but the close
            await refusedSocket.close()
            words.send("for the first")
            #expect(await waitUntil { socket.messages == ["for the first"] })
            #expect(wordFeed.stats.connectedClients == 1)
            #expect(try metrics.expectCounter("sluice_feed_clients_refused_total", [("feed", "words")]).totalValue == 1)

            let refusals = try metrics.expectCounter("sluice_feed_clients_refused_total", [("feed", "limited")])
            #expect(refusals.totalValue == 0)   // answered 503 before any client was made

            await second.close()
            #expect(await waitUntil { feed.stats.connectedClients == 1 && !feed.isFull })
            let third = try await SSEClient.connect(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 2 })
            subject.send(ServerSentEvent(data: "for both"))
            #expect(await first.wait { $0.contains { $0.data == ["for both"] } })
            #expect(await third.wait { $0.contains { $0.data == ["for both"] } })
            #expect(third.status == .ok)
            socket.cancel()
            await first.close()
            await third.close()
            await refused.close()
            #expect(await waitUntil { feed.stats.connectedClients == 0 && wordFeed.stats.connectedClients == 0 })
        }
    }
}
}
