import Logging
import Metrics
import MetricsTestKit
import NIOCore
import Sluice
import SluiceFeed
import Testing

/// Each policy with a real stalled client — connected, request sent, reading nothing, a small
/// receive buffer — beside a healthy client on the same endpoint, while the feed sends 16 KB
/// events until the policy has acted (the socket buffers and the client's buffer are full).
extension OverLoopback {
@Suite(.timeLimit(.minutes(3)))
struct SlowClientPolicyTests {
    static let payload = String(repeating: "x", count: 16_000)

    /// Runs the scenario; `check` gets the feed, the number of events sent, and both clients (the
    /// stalled one still stalled).
    private func stall(_ transport: Transport, policy: SlowClientPolicy, logger: Logger = Logger(label: "test"),
                       metrics: any MetricsFactory = MetricsSystem.factory, until done: @escaping @Sendable (FeedStats) -> Bool,
                       check: (EventFeed<ServerSentEvent>, UInt64, SSEClient, SSEClient) async throws -> Void) async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject, options: .init(replay: 16, policy: policy, name: "prices", logger: logger, metrics: metrics))
        let events = ServerSentEventStream(feed: feed, options: .init(heartbeat: nil, shutdownGrace: .seconds(60), window: 2))
        try await withFeedServer(transport, Endpoints(events: events)) { port, _ in
            let healthy = try await SSEClient.connect(port: port)
            let stalled = try await SSEClient.connect(port: port, reading: false, receiveBuffer: 4_096)
            #expect(await waitUntil { feed.stats.connectedClients == 2 })
            var sent: UInt64 = 0
            while !done(feed.stats), sent < 5_000 {
                sent += 1
                subject.send(ServerSentEvent(data: "\(sent) \(Self.payload)"))
                // Keep the healthy client within its own buffer: it must lose nothing.
                if sent % 4 == 0 {
                    let target = Int(sent) - 4
                    #expect(await healthy.wait { $0.filter(\.isEvent).count >= target })
                }
            }
            #expect(done(feed.stats), "the policy did not act after \(sent) events: \(feed.stats)")
            try await check(feed, sent, healthy, stalled)
            await healthy.close()
            await stalled.close()
        }
    }

    /// Every event from 1 to `count`, in order, and nothing dropped.
    private func expectAll(_ count: UInt64, in client: SSEClient) {
        let events = client.events
        #expect(events.compactMap(\.id) == Array(1...count))
        #expect(events.allSatisfy { $0.data.first?.hasPrefix("\($0.id!) ") == true })
        #expect(!client.frames.contains { $0.event == "dropped" })
    }

    /// The stalled client's stream, read after the fact: ids increase; every gap is announced by a
    /// `dropped` event, in the gap, with exactly the gap's size; the total is the feed's count.
    private func expectGapsAnnounced(_ client: SSEClient, sent: UInt64, dropped: Int) {
        var next: UInt64 = 1
        var announced = 0
        var total = 0
        for frame in client.frames where frame.retry == nil {
            if let count = frame.droppedCount {
                announced += count
            } else if let id = frame.id {
                #expect(id == next + UInt64(announced), "event \(id) after \(next - 1) with \(announced) announced")
                total += announced
                announced = 0
                next = id + 1
            } else if frame.event == "shutdown" {
                #expect(next - 1 + UInt64(announced) == sent)
                total += announced
                announced = 0
            }
        }
        #expect(total == dropped)
        #expect(client.frames.last?.event == "shutdown")
    }

    @Test(arguments: Transport.allCases) func dropOldestTellsTheStalledClientWhatItLostAndTheOthersLoseNothing(transport: Transport) async throws {
        try await stall(transport, policy: .dropOldest(buffer: 8), until: { $0.eventsDropped >= 20 }) { feed, sent, healthy, stalled in
            feed.finish()
            #expect(await healthy.wait { $0.last?.event == "shutdown" })
            expectAll(sent, in: healthy)
            try await stalled.startReading()
            #expect(await stalled.wait { $0.last?.event == "shutdown" })
            expectGapsAnnounced(stalled, sent: sent, dropped: feed.stats.eventsDropped)
            #expect(feed.stats.clientsDisconnected == 0)
            #expect(await waitUntil { healthy.ended && stalled.ended })
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }

    @Test(arguments: Transport.allCases) func dropNewestTellsTheStalledClientWhatItLostAndTheOthersLoseNothing(transport: Transport) async throws {
        try await stall(transport, policy: .dropNewest(buffer: 8), until: { $0.eventsDropped >= 20 }) { feed, sent, healthy, stalled in
            feed.finish()
            #expect(await healthy.wait { $0.last?.event == "shutdown" })
            expectAll(sent, in: healthy)
            try await stalled.startReading()
            #expect(await stalled.wait { $0.last?.event == "shutdown" })
            expectGapsAnnounced(stalled, sent: sent, dropped: feed.stats.eventsDropped)
            // Newest dropped: the stalled client kept the earliest events, so its last event is
            // older than the last one sent.
            #expect((stalled.events.last?.id ?? 0) < sent)
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }

    @Test(arguments: Transport.allCases) func disconnectClosesTheStalledClientAndTheOthersLoseNothing(transport: Transport) async throws {
        try await stall(transport, policy: .disconnect(buffer: 8), until: { $0.clientsDisconnected >= 1 }) { feed, sent, healthy, stalled in
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            #expect(feed.stats.eventsDropped == 0)
            try await stalled.startReading()
            #expect(await waitUntil { stalled.closed })   // the server closed it, without a last event
            #expect(!stalled.frames.contains { $0.event == "shutdown" })
            let stalledIDs = stalled.events.compactMap(\.id)
            #expect(stalledIDs == Array(1...UInt64(stalledIDs.count)))   // what it got before: in order
            feed.finish()
            #expect(await healthy.wait { $0.last?.event == "shutdown" })
            expectAll(sent, in: healthy)
            #expect(feed.stats.clientsDisconnected == 1)
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }

    @Test(arguments: Transport.allCases) func theFeedLogsAClientItDisconnectsAndCountsWhatItsClientsGot(transport: Transport) async throws {
        let logs = RecordingLogHandler.Store()
        let metrics = TestMetrics()
        try await stall(transport, policy: .disconnect(buffer: 8), logger: RecordingLogHandler.logger(logs), metrics: metrics,
                        until: { $0.clientsDisconnected >= 1 }) { feed, sent, healthy, _ in
            #expect(await healthy.wait { $0.filter(\.isEvent).count == Int(sent) })
            let dimensions = [("feed", "prices")]
            let notice = try #require(logs.records(containing: "fell behind and is disconnected").first)
            #expect(notice.level == .notice)
            #expect(notice.metadata["feed"] == "prices" && notice.metadata["buffered"] == "8")
            #expect(try metrics.expectCounter("sluice_feed_clients_disconnected_total", dimensions).totalValue == 1)
            #expect(try metrics.expectCounter("sluice_feed_events_published_total", dimensions).totalValue == Int64(sent))
            #expect(await waitUntil { (try? metrics.expectCounter("sluice_feed_events_delivered_total", dimensions).totalValue)
                                      == Int64(feed.stats.eventsDelivered) })
            #expect(try metrics.expectMeter("sluice_feed_clients", dimensions).lastValue == 1)   // the healthy one
            #expect(try !metrics.expectRecorder("sluice_feed_client_lag_events", dimensions).values.isEmpty)
            // Nothing per event above trace.
            #expect(logs.records.filter { $0.level >= .info }.count == 1)
        }
    }
}
}
