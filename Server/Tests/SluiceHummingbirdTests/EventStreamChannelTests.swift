import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Sluice
import SluiceHummingbird
import Testing

extension OverLoopback {
    /// `.eventStreams`: a connection is sorted by its first request line, however it arrives; one
    /// that asks for anything else first is the router's throughout. The router here has no
    /// stream route, so a stream it answers can only have come from the event loop.
    @Suite struct EventStreamChannelTests {
        struct NoSuchTopic: FeedRefusing, CustomStringConvertible {
            var feedRefusal: FeedRefusal { .invalid }
            var description: String { "no such topic" }
        }

        /// A feed of `public` served by `.eventStreams` alone; `GET /hello` in the router.
        private func withTopicServer(_ body: (_ port: Int, _ send: @Sendable (String) -> Void, _ feed: EventFeed<ServerSentEvent>) async throws -> Void) async throws {
            let subject = PassthroughSubject<ServerSentEvent, Never>()
            let feed = EventFeed(subject, options: .init(replay: 16))
            let streams = TopicEventStreams(feeds: { topic in
                guard topic == "public" else { throw NoSuchTopic() }
                return feed
            }, options: .init(heartbeat: nil))   // nothing written but events: a peer's close is seen by reading alone
            let router = Router()
            router.get("hello") { _, _ in "hello\n" }
            try await withServer(router, server: .eventStreams([.topics(streams, under: "/events/")])) { port, _ in
                try await body(port, { subject.send(ServerSentEvent(data: $0)) }, feed)
            }
        }

        @Test func aRequestLineInPiecesIsSortedOnceItIsWhole() async throws {
            try await withTopicServer { port, send, _ in
                let stream = try await RawConnection.open(port: port)
                for piece in ["GE", "T /even", "ts/pub", "lic?x=1 HTTP/1.", "1\r\nHost: here\r\n", "\r\n"] {
                    try await stream.write(piece)
                    try await Task.sleep(for: .milliseconds(20))   // separate reads, most likely; any split is correct
                }
                #expect(await stream.wait { hasDefaultRetryLine($0) })
                send("first")
                #expect(await stream.wait { $0.contains("data: first\n\n") })
                // The head: the stream's fields, a Date, and a body that ends with the connection.
                let head = try #require(stream.received.components(separatedBy: "\r\n\r\n").first)
                let fields = head.split(separator: "\r\n").dropFirst().map { $0.lowercased() }
                #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
                #expect(Set(fields.filter { !$0.hasPrefix("date: ") }) == [
                    "content-type: text/event-stream", "cache-control: no-cache", "x-accel-buffering: no", "connection: close"])
                let date = try #require(fields.first { $0.hasPrefix("date: ") }?.dropFirst(6))
                #expect(date.wholeMatch(of: /(sun|mon|tue|wed|thu|fri|sat), \d\d (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec) \d{4} \d\d:\d\d:\d\d gmt/) != nil,
                        "\(date)")

                let other = try await RawConnection.open(port: port)
                for piece in ["GET /hel", "lo HTTP/1.1\r\nHost: here\r\n\r\n"] { try await other.write(piece) }
                #expect(await other.wait { $0.contains("hello\n") })
                #expect(other.received.hasPrefix("HTTP/1.1 200 OK\r\n"))
                await stream.close()
                await other.close()
            }
        }

        @Test func aConnectionThatAsksForSomethingElseFirstIsTheRoutersThroughout() async throws {
            try await withTopicServer { port, send, _ in
                let connection = try await RawConnection.open(port: port)
                try await connection.write("GET /hello HTTP/1.1\r\nHost: here\r\n\r\n")
                #expect(await connection.wait { $0.contains("hello\n") })
                try await connection.write("GET /events/public HTTP/1.1\r\nHost: here\r\n\r\n")   // the same connection
                #expect(await connection.wait { $0.contains("HTTP/1.1 404 Not Found\r\n") })   // the router's answer
                await connection.close()

                let fresh = try await RawConnection.open(port: port)
                try await fresh.write("GET /events/public HTTP/1.1\r\nHost: here\r\n\r\n")
                #expect(await fresh.wait { hasDefaultRetryLine($0) })
                send("second")
                #expect(await fresh.wait { $0.contains("data: second\n\n") })
                await fresh.close()

                // Not a stream's request line: a POST, a path below a topic, a topic to decode, an unknown path.
                for line in ["POST /events/public", "GET /events/public/more", "GET /events/p%75blic", "GET /nowhere"] {
                    let other = try await RawConnection.open(port: port)
                    try await other.write("\(line) HTTP/1.1\r\nHost: here\r\nContent-Length: 0\r\n\r\n")
                    #expect(await other.wait { $0.contains("\r\n\r\n") })
                    #expect(other.received.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(line): \(other.received)")   // the router's
                    await other.close()
                }
            }
        }

        @Test func aClientThatClosesWhileNothingFlowsIsGoneAtOnce() async throws {
            try await withTopicServer { port, _, feed in
                for _ in 1...3 {
                    let connection = try await RawConnection.open(port: port)
                    try await connection.write("GET /events/public HTTP/1.1\r\nHost: here\r\n\r\n")
                    #expect(await connection.wait { hasDefaultRetryLine($0) })
                    #expect(feed.stats.connectedClients == 1)
                    await connection.close()
                    #expect(await waitUntil { feed.stats.connectedClients == 0 })   // no event or heartbeat written since
                }
            }
        }

        @Test func aTopicRefusedIsAnsweredAndClosed() async throws {
            try await withTopicServer { port, _, _ in
                let connection = try await RawConnection.open(port: port)
                try await connection.write("GET /events/private HTTP/1.1\r\nHost: here\r\n\r\n")
                #expect(await connection.wait { _ in connection.closed })
                #expect(connection.received.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(connection.received)")
                let text = "no such topic\n"
                #expect(connection.received.lowercased().contains("content-length: \(text.utf8.count)\r\n"))
                #expect(connection.received.hasSuffix("\r\n\r\n" + text))
            }
        }
    }
}

extension OverLoopback.EventStreamChannelTests {
    /// A stream whose last bytes are all in its connection's write buffer, but whose client reads
    /// nothing: the server's graceful shutdown does not wait for it past the shutdown grace.
    @Test(.timeLimit(.minutes(1))) func aFinishedStreamItsClientDoesNotTakeIsCutOffAfterTheGrace() async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject)
        let events = ServerSentEvents(feed: feed, options: .init(heartbeat: nil, shutdownGrace: .seconds(1)))
        let started = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
        // A write buffer large enough for every event: the stream reaches its end while the socket is stalled.
        try await withServer(Router(), server: .eventStreams([.feed(events, at: "events")],
                                                             configuration: .init(additionalChannelHandlers: [GenerousWriteBuffer()])),
                             services: [feed]) { port, _ in
            let stalled = try await SSEClient.connect(port: port, reading: false, receiveBuffer: 4_096)
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            let big = String(repeating: "z", count: 64_000)
            for i in 1...100 { subject.send(ServerSentEvent(data: "\(i) \(big)")) }   // 6.4 MB: more than the kernel holds
            #expect(await waitUntil { feed.stats.eventsDelivered == 100 })           // all of it handed to the connection
            started.withLockedValue { $0 = .now }
            _ = stalled
        }
        // withServer has shut the server down gracefully, and it has returned.
        let took = ContinuousClock.now - (try #require(started.withLockedValue { $0 }))
        #expect(took < .seconds(30), "shutdown took \(took)")
        #expect(feed.isFinished)
    }
}

extension OverLoopback.EventStreamChannelTests {
    /// An idle stream's connection keeps a receive buffer for its next read: its first request is
    /// read into buffers that start at 512 bytes; a connection handed to the router reads as NIO's
    /// default does (2,048 bytes first) from then on.
    @Test func aStreamReadsItsRequestInSmallBuffersAndAnotherConnectionGetsTheDefaultBack() async throws {
        let readings = ConnectionReadings()
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject)
        let events = ServerSentEvents(feed: feed, options: .init(heartbeat: nil))
        let router = Router()
        router.get("hello") { _, _ in "hello\n" }
        try await withServer(router, server: .eventStreams([.feed(events, at: "events")],
                                                           configuration: .init(additionalChannelHandlers: [readings.handler()])),
                             services: [feed]) { port, _ in
            let stream = try await RawConnection.open(port: port)
            try await stream.write("GET /events HTTP/1.1\r\nHost: here\r\n\r\n")
            #expect(await stream.wait { hasDefaultRetryLine($0) })
            #expect(await waitUntil { readings.values.count == 1 })
            let other = try await RawConnection.open(port: port)
            try await other.write("GET /hello HTTP/1.1\r\nHost: here\r\n\r\n")
            #expect(await other.wait { $0.contains("hello\n") })
            #expect(await waitUntil { readings.values.count == 2 })
            #expect(readings.values == [512, 2_048])
            await stream.close()
            await other.close()
        }
    }
}

/// The first buffer size of each connection's receive allocator, as the connection's handlers
/// are added (a stream's after its request was sorted; another connection's once handed over).
final class ConnectionReadings: Sendable {
    private let readings = NIOLockedValueBox<[Int]>([])

    var values: [Int] { readings.withLockedValue { $0 } }

    /// A handler that records its connection's reading when it is added.
    func handler() -> any RemovableChannelHandler { Recorder(readings: self) }

    private final class Recorder: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Never
        let readings: ConnectionReadings
        init(readings: ConnectionReadings) { self.readings = readings }

        func handlerAdded(context: ChannelHandlerContext) {
            let allocator = try? context.channel.syncOptions?.getOption(ChannelOptions.recvAllocator)
            let initial = (allocator as? AdaptiveRecvByteBufferAllocator)?.initial ?? -1
            readings.readings.withLockedValue { $0.append(initial) }
        }
    }
}

/// Sets its connection's write-buffer water marks high (32 and 64 MiB).
final class GenerousWriteBuffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(.writeBufferWaterMark, value: .init(low: 32 << 20, high: 64 << 20))
    }
}

/// Whether `text` has a stream's `retry:` line of the default options: 3 s spread by the default
/// jitter, 3,000 to 4,500 ms.
func hasDefaultRetryLine(_ text: String) -> Bool {
    guard let range = text.range(of: "retry: ") else { return false }
    let digits = text[range.upperBound...].prefix { $0.isNumber }
    guard let milliseconds = Int(digits), text[range.upperBound...].dropFirst(digits.count).hasPrefix("\n") else { return false }
    return (3_000...4_500).contains(milliseconds)
}
