import NIOCore
import Sluice
import SluiceFeed
import Testing

/// Server-Sent Events over real sockets on loopback: a Hummingbird or a Vapor server on a port the
/// system picks, raw SwiftNIO clients reading the byte stream.
extension OverLoopback {
@Suite(.timeLimit(.minutes(2)))
struct ServerSentEventsTests {
    @Test(arguments: Transport.allCases) func numbersEventsOnceForAllClientsWithRetryFirstAndHeartbeatsWhenIdle(transport: Transport) async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject)
        let events = ServerSentEventStream(feed: feed, options: .init(retry: .milliseconds(2_500), retryJitter: 0, heartbeat: .milliseconds(100)))
        try await withFeedServer(transport, Endpoints(events: events)) { port, _ in
            let first = try await SSEClient.connect(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            subject.send(ServerSentEvent(data: "one"))
            subject.send(ServerSentEvent(data: "two\nlines", event: "named"))
            let second = try await SSEClient.connect(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 2 })
            subject.send(ServerSentEvent(data: "three"))
            #expect(await first.wait { $0.filter { $0.id != nil }.count == 3 })
            #expect(await second.wait { $0.filter { $0.id != nil }.count == 1 })
            // Nothing more is sent: the idle streams get heartbeat comments.
            #expect(await first.wait { $0.filter { $0.comments == ["heartbeat"] }.count >= 2 })
            #expect(await second.wait { $0.contains { $0.comments == ["heartbeat"] } })

            #expect(first.status == .ok)
            #expect(first.headers?["Content-Type"] == ["text/event-stream"])
            #expect(first.headers?["Cache-Control"] == ["no-cache"])
            let frames = first.frames
            #expect(frames.first == SSEFrame(retry: 2_500))
            let numbered = frames.filter { $0.id != nil }
            let epoch = feed.lastEventID.epoch
            #expect(numbered == [SSEFrame(id: 1, epoch: epoch, data: ["one"]),
                                 SSEFrame(id: 2, epoch: epoch, event: "named", data: ["two", "lines"]),
                                 SSEFrame(id: 3, epoch: epoch, data: ["three"])])
            #expect(second.frames.filter { $0.id != nil } == [SSEFrame(id: 3, epoch: epoch, data: ["three"])])   // the same id
            #expect(feed.stats.eventsPublished == 3 && feed.stats.eventsDelivered == 4)
            await first.close()
            await second.close()
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }

    /// Each client's `retry:` is drawn from the stream's delay spread by its jitter: 40 clients of
    /// 2 s with a jitter of 0.5 get values from 2,000 to 3,000 ms, and not all the same one.
    @Test(arguments: Transport.allCases) func eachClientsRetryIsSpreadByTheJitter(transport: Transport) async throws {
        let feed = EventFeed(PassthroughSubject<ServerSentEvent, Never>())
        let events = ServerSentEventStream(feed: feed, options: .init(retry: .seconds(2), retryJitter: 0.5, heartbeat: nil))
        try await withFeedServer(transport, Endpoints(events: events)) { port, _ in
            var retries: [Int] = []
            for _ in 0..<40 {
                let client = try await SSEClient.connect(port: port)
                #expect(await client.wait { $0.contains { $0.retry != nil } })
                retries.append(client.frames.compactMap(\.retry).first ?? 0)
                await client.close()
            }
            #expect(retries.allSatisfy { (2_000...3_000).contains($0) }, "\(retries)")
            #expect(Set(retries).count > 1, "every client got \(retries.first ?? 0)")
        }
    }

    @Test(arguments: Transport.allCases) func resumingWithinTheWindowGetsExactlyTheMissedEventsThenLiveOnes(transport: Transport) async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        // A replay window and a client buffer that hold the whole burst below: the test is about the seam between
        // replay and live events, not about a client that falls behind.
        let feed = EventFeed(subject, options: .init(replay: 4_096, policy: .dropOldest(buffer: 4_096)))
        // Heartbeats: a server that sees a peer close only when it writes (Vapor) sees the client leave.
        let events = ServerSentEventStream(feed: feed, options: .init(heartbeat: .milliseconds(200)))
        try await withFeedServer(transport, Endpoints(events: events)) { port, _ in
            let first = try await SSEClient.connect(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            for i in 1...5 { subject.send(ServerSentEvent(data: "e\(i)")) }
            #expect(await first.wait { $0.filter(\.isEvent).count == 5 })
            await first.close()
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
            for i in 6...10 { subject.send(ServerSentEvent(data: "e\(i)")) }   // missed while away

            let header = try await SSEClient.connect(port: port, lastEventID: "\(feed.id(5))")
            #expect(await header.wait { $0.filter(\.isEvent).count == 5 })
            let query = try await SSEClient.connect(port: port, path: "/events?lastEventId=\(feed.id(8))")
            #expect(await query.wait { $0.filter(\.isEvent).count == 2 })
            subject.send(ServerSentEvent(data: "e11"))
            #expect(await header.wait { $0.filter(\.isEvent).count == 6 })
            #expect(await query.wait { $0.filter(\.isEvent).count == 3 })
            #expect(header.events.compactMap(\.id) == Array(6...11))
            #expect(header.events.map(\.data) == (6...11).map { ["e\($0)"] })
            #expect(query.events.compactMap(\.id) == Array(9...11))
            #expect(!header.frames.contains { $0.event != nil })   // no reset, no drop

            // Resuming while events flow: the replay and the live stream meet without a duplicate or a gap.
            let sender = Task {
                for i in 12...2_011 {
                    subject.send(ServerSentEvent(data: "e\(i)"))
                    if i % 50 == 0 { await Task.yield() }
                }
            }
            let racing = try await SSEClient.connect(port: port, lastEventID: "\(feed.id(11))")
            await sender.value
            #expect(await racing.wait { $0.last(where: \.isEvent)?.id == 2_011 })   // heartbeats may follow it
            #expect(racing.events.compactMap(\.id) == Array(12...2_011))
            #expect(!racing.frames.contains { $0.event != nil })   // no reset, no drop
            #expect(feed.stats.eventsDropped == 0)
            for client in [header, query, racing] { await client.close() }
        }
    }

    @Test(arguments: Transport.allCases) func resumingFromBeforeTheWindowIsToldFirst(transport: Transport) async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject, options: .init(replay: 4))
        let events = ServerSentEventStream(feed: feed, options: .init(heartbeat: nil))
        try await withFeedServer(transport, Endpoints(events: events)) { port, _ in
            for i in 1...20 { subject.send(ServerSentEvent(data: "e\(i)")) }   // 17...20 kept
            let old = try await SSEClient.connect(port: port, lastEventID: "\(feed.id(3))")
            #expect(await old.wait { $0.filter(\.isEvent).count == 4 })
            let unknown = try await SSEClient.connect(port: port, lastEventID: "\(feed.id(99))")   // never given by this feed
            // Another instance's id (another epoch), one from before ids had epochs, and garbage.
            let otherEpoch = try await SSEClient.connect(port: port, lastEventID: "\(EventID(epoch: "another", position: 18))")
            let bare = try await SSEClient.connect(port: port, lastEventID: "18")
            let garbage = try await SSEClient.connect(port: port, path: "/events?lastEventId=%C3%A9-x")
            #expect(await waitUntil { feed.stats.connectedClients == 5 })
            subject.send(ServerSentEvent(data: "e21"))
            #expect(await old.wait { $0.filter(\.isEvent).count == 5 })
            for client in [unknown, otherEpoch, bare, garbage] {
                #expect(await client.wait { $0.filter(\.isEvent).count == 1 })
                // The reset's id is where the client now stands (the feed's head when it came), so
                // that a reconnection right after it is not reset again.
                #expect(client.frames.filter { $0.retry == nil }.map(\.withoutEpoch)
                        == [SSEFrame(id: 20, event: "reset", data: ["{\"missed\":null}"]), SSEFrame(id: 21, data: ["e21"])])
                #expect(client.frames.first { $0.event == "reset" }?.epoch == feed.lastEventID.epoch)
            }

            let oldFrames = old.frames.filter { $0.retry == nil }
            #expect(oldFrames.first == SSEFrame(id: 16, epoch: feed.lastEventID.epoch, event: "reset", data: ["{\"missed\":13}"]))   // before 17, the first replayed
            #expect(oldFrames.dropFirst().compactMap(\.id) == Array(17...21))
            #expect(oldFrames.dropFirst().allSatisfy { $0.epoch == feed.lastEventID.epoch })
            for client in [old, unknown, otherEpoch, bare, garbage] { await client.close() }
        }
    }
}
}
