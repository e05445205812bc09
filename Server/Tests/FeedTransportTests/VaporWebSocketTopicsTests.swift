import HummingbirdWSClient
import NIOConcurrencyHelpers
import SluiceFeed
import SluiceVapor
import Testing
import Vapor

extension OverLoopback {
/// What only Vapor's `WebSocketTopics` has: Vapor hands a client's messages over without waiting,
/// so those not handled yet are bounded.
@Suite(.timeLimit(.minutes(2)))
struct VaporWebSocketTopicsTests {
    @Test func aClientWithMoreMessagesWaitingThanTheBoundIsClosedAsAPolicyViolation() async throws {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        // Every lookup waits until the test ends: the first message is being handled, the next
        // four wait, the one after is over the bound.
        let (held, release) = AsyncStream<Void>.makeStream()
        let lookups = NIOLockedValueBox(0)
        let sockets = WebSocketTopics<ServerSentEvent>(maximumPendingMessages: 4)
        app.webSocket("ws") { _, socket in
            sockets.serve(socket) { _, _ in
                lookups.withLockedValue { $0 += 1 }
                for await _ in held {}
                throw TopicFeeds.Unknown()
            }
        }
        let server = app.server
        try await server.start(address: .hostname("127.0.0.1", port: 0))
        let port = try #require(app.http.server.shared.localAddress?.port)
        var logger = Logger(label: "ws-client")
        logger.logLevel = .warning
        let close = try await HummingbirdWSClient.WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/ws", logger: logger) { inbound, outbound, _ in
            // The server may close while these are written: a write that fails is not an error here.
            for topic in 1...20 { try? await outbound.write(.text("{\"subscribe\":\"t\(topic)\"}")) }
            for try await _ in inbound.messages(maxSize: 1 << 16) {}
        }
        #expect(close?.closeCode == .policyViolation)
        // Those past the bound were never handled: at most the one being handled and the four waiting.
        #expect(lookups.withLockedValue { $0 } <= 5)
        release.finish()
        try await app.asyncShutdown()
        await server.shutdown()
    }
}
}
