import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServerTestSupport
@testable import SluiceFeed
import Sluice
import Testing

/// Heartbeats of many streams from one timer per event loop: every idle stream gets them, and the
/// timer goes with the last stream.
@Suite(.serialized) struct HeartbeatTickerTests {
    /// What one stream wrote, as text.
    final class Written: Sendable {
        private let text = NIOLockedValueBox("")
        var value: String { text.withLockedValue { $0 } }
        func append(_ buffer: ByteBuffer) { text.withLockedValue { $0 += String(buffer: buffer) } }
    }

    @Test func oneTimerPerLoopBeatsForEveryIdleStreamAndStopsWithTheLast() async throws {
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let feed = EventFeed(PassthroughSubject<ServerSentEvent, Never>())
        let stream = ServerSentEventStream(feed: feed, options: .init(retry: nil, heartbeat: .milliseconds(100), eventLoopGroup: loop))
        let census = { HeartbeatTicker.census(on: loop.next()) }

        let count = 300
        let clients = (0..<count).map { _ in stream.client() }
        let written = (0..<count).map { _ in Written() }
        let runs = zip(clients, written).map { client, out in
            Task { try await client.run { out.append($0) } }
        }
        // 300 streams on one loop: one more timer, not 300.
        #expect(census().tickers == 1)
        #expect(census().streams == count)

        // Every idle stream gets heartbeats.
        #expect(await waitUntil { written.allSatisfy { $0.value.components(separatedBy: ": heartbeat").count > 2 } })

        // Every stream ends: the timer goes with the last.
        for client in clients { client.end() }
        for run in runs { _ = try? await run.value }
        #expect(census().tickers == 0)
        #expect(census().streams == 0)
        try await loop.shutdownGracefully()
    }
}
