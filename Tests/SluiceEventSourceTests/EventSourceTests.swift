import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
@testable import SluiceEventSource
import Testing
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

/// A subscriber that records what it receives and requests what the test says.
final class RecordingSubscriber: Subscriber, @unchecked Sendable {
    typealias Input = EventSource.Event
    typealias Failure = EventSourceError

    let events = Recorder<EventSource.Event>()
    let completions = Recorder<Subscribers.Completion<EventSourceError>>()
    private let lock = NSLock()
    private var storedSubscription: (any Subscription)?
    private let initialDemand: Subscribers.Demand
    /// Called in `receive(_:)`, with the number of events received so far, before it returns.
    let onReceive: (@Sendable (Int) -> Void)?

    init(initialDemand: Subscribers.Demand = .unlimited, onReceive: (@Sendable (Int) -> Void)? = nil) {
        self.initialDemand = initialDemand
        self.onReceive = onReceive
    }

    /// The subscription, as the client's driver (for its buffer).
    var driver: EventStreamDriver<EventStreamParser>? { lock.withLock { storedSubscription } as? EventStreamDriver<EventStreamParser> }

    /// The subscription, as an ``EventSocket``'s driver.
    var socketDriver: EventStreamDriver<SocketMessageDecoder>? {
        lock.withLock { storedSubscription } as? EventStreamDriver<SocketMessageDecoder>
    }

    func receive(subscription: any Subscription) {
        lock.withLock { storedSubscription = subscription }
        if initialDemand > .none { subscription.request(initialDemand) }
    }

    func receive(_ input: EventSource.Event) -> Subscribers.Demand {
        events.append(input)
        onReceive?(events.values.count)
        return .none
    }

    func receive(completion: Subscribers.Completion<EventSourceError>) {
        completions.append(completion)
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock { storedSubscription }?.request(demand)
    }

    func cancel() {
        lock.withLock { storedSubscription }?.cancel()
    }

    /// The data of the ordinary events received.
    var data: [String] { events.values.compactMap { $0.message?.data } }
}

/// How a test's `http:` stream is read: off Apple's systems, by the module's own HTTP client or,
/// given a session of the caller's, by a FoundationNetworking data task. On Apple's systems both
/// are data tasks.
enum Reader: String, CaseIterable, Sendable {
    case ownClient, dataTask

    /// A client of `request`, read this way.
    func source(_ request: URLRequest, _ configuration: EventSource.Configuration) -> EventSource {
        switch self {
        case .ownClient: EventSource(request: request, configuration: configuration)
        case .dataTask: EventSource(request: request, configuration: configuration, session: URLSession(configuration: .default))
        }
    }

    /// A client of `url`, read this way.
    func source(_ url: URL, _ configuration: EventSource.Configuration) -> EventSource {
        source(URLRequest(url: url), configuration)
    }

    /// Whether a full buffer stops the reading with the connection open (else it is closed and
    /// resumed past the read-ahead).
    var pauses: Bool {
        #if canImport(Darwin)
        true
        #else
        self == .ownClient
        #endif
    }
}

/// A configuration for tests: reconnects at once.
private let quick = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumBackoff: .milliseconds(50))

/// `id: <id>\ndata: <data>\n\n`.
private func frame(_ id: Int, _ data: String? = nil) -> String {
    "id: e-\(id)\ndata: \(data ?? "event \(id)")\n\n"
}

@Suite("EventSource", .serialized, .timeLimit(.minutes(1)))
struct EventSourceTests {
    @Test(arguments: Reader.allCases) func framesSplitAtOddPointsArriveWhole(reader: Reader) async throws {
        let stream = "retry: 5000\n\n" + frame(1) + "event: price\ndata: {\"p\":\r\ndata: 2}\r\n\r\n" + ": heartbeat\n\n" + frame(2, "multi\nline".replacingOccurrences(of: "\n", with: "\ndata: "))
        let bytes = Array(stream.utf8)
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            var offset = 0
            for size in [1, 2, 3, 5, 7, 11, 13] + Array(repeating: 17, count: bytes.count) where offset < bytes.count {
                let end = min(bytes.count, offset + size)
                connection.write(Array(bytes[offset..<end]))
                offset = end
            }
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        reader.source(server.url(), quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 3))
        #expect(subscriber.events.values == [
            .event(.init(id: "e-1", event: "message", data: "event 1")),
            .event(.init(id: "e-1", event: "price", data: "{\"p\":\n2}")),
            .event(.init(id: "e-2", event: "message", data: "multi\nline")),
        ])
        subscriber.cancel()
    }

    @Test(arguments: Reader.allCases) func aConnectionDroppedMidEventResumesAfterTheLastWholeEvent(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            if connection.index == 0 {
                connection.write("retry: 10\n\n" + frame(1) + frame(2) + "id: e-3\ndata: thi")
                connection.close()   // mid-event
            } else {
                let after = Int(connection.request.headers["last-event-id"]?.dropFirst(2) ?? "0") ?? 0
                connection.write((after + 1...after + 2).map { frame($0) }.joined())
                connection.waitForClientClose()
            }
        }
        let subscriber = RecordingSubscriber()
        reader.source(server.url(), EventSource.Configuration(reconnectionTime: .seconds(60))).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 4))
        #expect(subscriber.data == ["event 1", "event 2", "event 3", "event 4"])
        let requests = server.requests.values
        #expect(requests.count == 2)
        #expect(requests.first?.headers["last-event-id"] == nil)
        #expect(requests.last?.headers["last-event-id"] == "e-2")
        #expect(requests.last?.headers["accept"] == "text/event-stream")
        subscriber.cancel()
    }

    @Test func theLastEventIDSurvivesReconnectionsWithoutEvents() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            switch connection.index {
            case 0: connection.write("retry: 10\n\n" + frame(1))
            case 1, 2: connection.write(": nothing new\n\n")   // no event, no id
            default: connection.write(frame(2)); connection.waitForClientClose()
            }
            connection.close()
        }
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url()).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 2))
        #expect(server.requests.values.dropFirst().map { $0.headers["last-event-id"] } == ["e-1", "e-1", "e-1"])
        subscriber.cancel()
    }

    @Test(arguments: Reader.allCases) func retryFromTheServerSetsTheReconnectionTime(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write("retry: 20\n" + frame(connection.index))   // retry: within the event
            if connection.index == 0 { connection.close() } else { connection.waitForClientClose() }
        }
        // Without the server's retry: the client would wait a minute before reconnecting.
        let subscriber = RecordingSubscriber()
        reader.source(server.url(), EventSource.Configuration(reconnectionTime: .seconds(60))).subscribe(subscriber)
        #expect(await server.requests.wait(forCount: 2, limit: 20))
        #expect(await subscriber.events.wait(forCount: 2))
        #expect(subscriber.events.values.first?.message?.retry == 20)
        subscriber.cancel()
    }

    @Test(arguments: Reader.allCases) func status204Finishes(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            if connection.index == 0 {
                connection.writeStreamHead()
                connection.write(frame(1))
                connection.close()
            } else {
                connection.respond(status: 204, reason: "No Content")
            }
        }
        let subscriber = RecordingSubscriber()
        reader.source(server.url(), quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values.first == .finished)
        #expect(subscriber.data == ["event 1"])
        #expect(server.requests.values.count == 2)
    }

    @Test(arguments: Reader.allCases) func status5xxAnd429AreRetried(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0: connection.respond(status: 503, reason: "Service Unavailable")
            case 1: connection.respond(status: 429, reason: "Too Many Requests")
            case 2: connection.respond(status: 500, reason: "Internal Server Error")
            default:
                connection.writeStreamHead()
                connection.write(frame(1))
                connection.waitForClientClose()
            }
        }
        let subscriber = RecordingSubscriber()
        reader.source(server.url(), quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(subscriber.data == ["event 1"])
        #expect(server.requests.values.count == 4)
        #expect(subscriber.completions.values.isEmpty)
        subscriber.cancel()
    }

    @Test(arguments: Reader.allCases) func status401FailsWithTheStatusAndTheCallersHeadersWereSent(reader: Reader) async throws {
        let server = try LoopbackServer { connection in connection.respond(status: 401, reason: "Unauthorized") }
        var request = URLRequest(url: server.url())
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        let subscriber = RecordingSubscriber()
        reader.source(request, quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values.first == .failure(.status(401)))
        #expect(server.requests.values.map { $0.headers["authorization"] } == ["Bearer secret"])
    }

    @Test(arguments: Reader.allCases) func anotherContentTypeFails(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello")
            connection.close()
        }
        let subscriber = RecordingSubscriber()
        reader.source(server.url(), quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values.first == .failure(.contentType("text/html")))
    }

    @Test(arguments: Reader.allCases) func anEventThatNeverEndsFailsAtTheLimit(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1) + "data: " + String(repeating: "x", count: 50_000))
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        var configuration = quick
        configuration.maximumEventSize = 10_000
        reader.source(server.url(), configuration).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.eventTooLarge(limit: 10_000))])
        #expect(subscriber.data == ["event 1"])
        #expect(await server.closed.wait(forCount: 1))
    }

    @Test(arguments: Reader.allCases) func networkErrorsAreRetriedUntilMaximumAttempts(reader: Reader) async throws {
        // A port nothing listens on: every attempt fails to connect.
        let server = try LoopbackServer { $0.close() }
        let url = server.url()
        server.stop()
        let subscriber = RecordingSubscriber()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(5), maximumAttempts: 3)
        reader.source(url, configuration).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        guard case .failure(.gaveUp(let attempts, _)) = subscriber.completions.values.first else {
            Issue.record("expected gaveUp, got \(subscriber.completions.values)")
            return
        }
        #expect(attempts == 3)
    }

    @Test func sluiceControlEventsAreTypedValues() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write("retry: 3000\n\n" + "event: reset\ndata: {\"missed\":12}\n\n" + "event: reset\ndata: {\"missed\":null}\n\n"
                             + frame(1) + "event: dropped\ndata: {\"dropped\":3}\n\n" + "event: shutdown\ndata: draining\n\n"
                             + "event: reset\ndata: not json\n\n")
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 6))
        #expect(subscriber.events.values == [
            .reset(missed: 12), .reset(missed: nil), .event(.init(id: "e-1", data: "event 1")), .dropped(count: 3),
            .shutdown(reason: "draining"), .event(.init(id: "e-1", event: "reset", data: "not json")),
        ])
        subscriber.cancel()
    }

    @Test func controlEventsAreOrdinaryWhenNotRecognized() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write("event: dropped\ndata: {\"dropped\":3}\n\n")
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        var configuration = quick
        configuration.recognizesSluiceControlEvents = false
        EventSource(url: server.url(), configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(subscriber.events.values == [.event(.init(event: "dropped", data: "{\"dropped\":3}"))])
        subscriber.cancel()
    }

    @Test(arguments: Reader.allCases) func aSubscriberAskingForOneHoldsNoMoreThanOnePlusTheBuffer(reader: Reader) async throws {
        // A server that resumes after Last-Event-ID, as a Sluice feed does: 40 events of 2 KB in
        // all, more than the client takes in before it stops reading.
        let padding = String(repeating: "x", count: 2_000)
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            let after = Int(connection.request.headers["last-event-id"]?.dropFirst(2) ?? "0") ?? 0
            connection.write((after + 1..<41).map { frame($0, "event \($0) \(padding)") }.joined())
            connection.waitForClientClose(limit: 30)
        }
        let held = Atomic<Int>(0)
        let driverBox = Locked<EventStreamDriver<EventStreamParser>?>(nil)
        let subscriber = RecordingSubscriber(initialDemand: .max(1)) { received in
            // Never more than what was asked (1 at a time) plus the buffer (4).
            let buffered = driverBox.withLock { $0 }?.bufferedCount ?? 0
            held.store(max(held.load(ordering: .relaxed), buffered), ordering: .relaxed)
        }
        // A read-ahead of 16 KiB, less than the 80 KB sent: with FoundationNetworking's data task
        // the client closes the connection once the buffer is full and 16 KiB wait behind it.
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), bufferSize: 4, readAhead: 16_384)
        reader.source(server.url(), configuration).subscribe(subscriber)
        driverBox.withLock { $0 = subscriber.driver }
        let driver = try #require(subscriber.driver)
        #expect(await subscriber.events.wait(forCount: 1))
        if reader.pauses {
            // The reading stops: wait until the buffer is full.
            #expect(await waitUntil { driver.bufferedCount == 4 })
        } else {
            // FoundationNetworking: the client closed the connection once the read-ahead was passed.
            #expect(await server.closed.wait(forCount: 1))
        }
        #expect(subscriber.events.values.count == 1)
        #expect(driver.bufferedCount == 4)
        #expect(driver.lastEventID == "e-5")   // what it holds, and no further
        // One more at a time, then the rest: every event once, in order.
        for received in 2...10 {
            subscriber.request(.max(1))
            #expect(await subscriber.events.wait(forCount: received))
            #expect(subscriber.events.values.count == received)
            #expect(driver.bufferedCount <= 4)
        }
        subscriber.request(.unlimited)
        #expect(await subscriber.events.wait(forCount: 40))
        #expect(subscriber.data == (1...40).map { "event \($0) \(padding)" })
        #expect(held.load(ordering: .relaxed) <= 4)
        if reader.pauses {
            // One connection, held open throughout.
            #expect(server.requests.values.count == 1)
            #expect(server.closed.values.isEmpty)
        } else {
            // It resumed after what it had taken in, each time.
            let resumedAfter = server.requests.values.dropFirst().compactMap { $0.headers["last-event-id"] }
            #expect(resumedAfter.count == server.requests.values.count - 1)
            #expect(!resumedAfter.isEmpty)
            #expect(resumedAfter == resumedAfter.sorted { Int($0.dropFirst(2))! < Int($1.dropFirst(2))! })
        }
        subscriber.cancel()
    }

    @Test(arguments: Reader.allCases) func aSlowSubscriberIsServedFromTheReadAheadOnOneConnection(reader: Reader) async throws {
        // 40 events of 2 KB, within the default read-ahead (256 KiB): a subscriber that takes
        // them one at a time holds at most the buffer in events, and the connection stays open.
        let padding = String(repeating: "x", count: 2_000)
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write((1..<41).map { frame($0, "event \($0) \(padding)") }.joined())
            connection.waitForClientClose(limit: 30)
        }
        let subscriber = RecordingSubscriber(initialDemand: .max(1))
        reader.source(server.url(), EventSource.Configuration(bufferSize: 4)).subscribe(subscriber)
        let driver = try #require(subscriber.driver)
        for received in 1...40 {
            #expect(await subscriber.events.wait(forCount: received))
            #expect(driver.bufferedCount <= 4)
            subscriber.request(.max(1))
        }
        #expect(subscriber.data == (1...40).map { "event \($0) \(padding)" })
        #expect(server.requests.values.count == 1)
        #expect(server.closed.values.isEmpty)
        subscriber.cancel()
    }

    @Test(arguments: Reader.allCases) func aForAwaitLoopSlowerThanItsStreamGetsEveryEventWithBoundedBytes(reader: Reader) async throws {
        // 40,000 events (3.6 MB) written at once, resumed after Last-Event-ID; a loop that asks for
        // one event at a time is slower than loopback. The client must stop reading (suspend, or
        // close past the read-ahead) while the loop keeps asking, not hold the stream's bytes until
        // they pass the limit (1 MiB here).
        let count = 40_000
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            let after = Int(connection.request.headers["last-event-id"]?.dropFirst(2) ?? "0") ?? 0
            guard after < count else { return connection.close() }
            connection.write((after + 1...count).map { frame($0, "{\"price\":\($0),\"pad\":\"\(String(repeating: "p", count: 40))\"}") }.joined())
            connection.waitForClientClose(limit: 30)
        }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumEventSize: 1 << 20)
        var received = 0
        for try await event in reader.source(server.url(), configuration).events {
            guard let message = event.message else { continue }
            received += 1
            #expect(message.id == "e-\(received)")
            if received == count { break }
        }
        #expect(received == count)
    }

    @Test(arguments: Reader.allCases) func aStreamWithoutIdsIsReadOnNotStartedOver(reader: Reader) async throws {
        // Nothing to resume from: closing and reconnecting would start the stream over.
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write((1...20).map { "data: event \($0)\n\n" }.joined())
            connection.waitForClientClose(limit: 30)
        }
        let subscriber = RecordingSubscriber(initialDemand: .max(1))
        reader.source(server.url(), EventSource.Configuration(bufferSize: 2)).subscribe(subscriber)
        for received in 1...20 {
            #expect(await subscriber.events.wait(forCount: received))
            #expect(subscriber.events.values.count == received)
            if received < 20 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.data == (1...20).map { "event \($0)" })
        #expect(server.requests.values.count == 1)
        #expect(server.closed.values.isEmpty)
        subscriber.cancel()
    }

    /// Where the reading cannot pause (FoundationNetworking's data task).
    @Test(.enabled(if: !Reader.dataTask.pauses))
    func aStreamWithoutIdsFailsWhenTheBytesHeldPassTheLimit() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write((1...50).map { "data: \($0) \(String(repeating: "x", count: 100))\n\n" }.joined())
            connection.waitForClientClose(limit: 30)
        }
        let subscriber = RecordingSubscriber(initialDemand: .max(1))
        var configuration = quick
        configuration.bufferSize = 2
        configuration.maximumEventSize = 1_000
        Reader.dataTask.source(server.url(), configuration).subscribe(subscriber)
        #expect(await server.closed.wait(forCount: 1))   // the client gave up the stream
        subscriber.request(.unlimited)                     // what it held, then why it ended
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.subscriberTooSlow(limit: 1_000))])
        // What it held when it failed — the buffer's two, after the one asked for if that was
        // taken before (the bytes may come in one chunk or more) — in order.
        #expect((2...3).contains(subscriber.data.count))
        #expect(subscriber.data.enumerated().allSatisfy { $1.hasPrefix("\($0 + 1) ") })
    }

    @Test(arguments: Reader.allCases) func cancelClosesTheConnection(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1))
            connection.waitForClientClose(limit: 30)
        }
        let subscriber = RecordingSubscriber()
        reader.source(server.url(), quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        subscriber.cancel()
        #expect(await server.closed.wait(forCount: 1))
        #expect(subscriber.completions.values.isEmpty)
    }

    @Test func nothingIsRequestedBeforeDemand() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1))
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber(initialDemand: .none)
        EventSource(url: server.url(), configuration: quick).subscribe(subscriber)
        #expect(server.requests.values.isEmpty)
        subscriber.request(.max(1))
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(server.requests.values.count == 1)
        subscriber.cancel()
    }

    @Test func aCallersSessionConfigurationIsUsed() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1))
            connection.waitForClientClose()
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Client": "sluice-tests"]
        let session = URLSession(configuration: configuration)
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url(), configuration: quick, session: session).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(server.requests.values.first?.headers["x-client"] == "sluice-tests")
        subscriber.cancel()
        session.invalidateAndCancel()
    }

    @Test func anInvalidURLFails() {
        let subscriber = RecordingSubscriber()
        EventSource(url: URL(string: "ftp://example.com/x")!).subscribe(subscriber)
        #expect(subscriber.completions.values == [.failure(.invalidRequest)])
    }

    // The AsyncSequence.

    @Test(arguments: Reader.allCases) func forAwaitReadsResumesAndEndsAt204(reader: Reader) async throws {
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.writeStreamHead()
                connection.write("retry: 10\n\n" + frame(1) + frame(2))
                connection.close()
            case 1:
                connection.writeStreamHead()
                connection.write(frame(3))
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
        var received: [String] = []
        for try await event in reader.source(server.url(), quick).events {
            received.append(event.message?.data ?? "?")
        }
        #expect(received == ["event 1", "event 2", "event 3"])
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "e-2", "e-3"])
    }

    @Test func forAwaitThrowsTheError() async throws {
        let server = try LoopbackServer { connection in connection.respond(status: 403, reason: "Forbidden") }
        await #expect(throws: EventSourceError.status(403)) {
            for try await _ in EventSource(url: server.url(), configuration: quick).events {}
        }
    }

    @Test func breakingOutOfForAwaitClosesTheConnection() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1) + frame(2))
            connection.waitForClientClose(limit: 30)
        }
        var received = 0
        for try await _ in EventSource(url: server.url(), configuration: quick).events {
            received += 1
            break
        }
        #expect(received == 1)
        #expect(await server.closed.wait(forCount: 1))
    }

    @Test func cancellingTheIteratingTaskEndsTheSequenceAndClosesTheConnection() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1))
            connection.waitForClientClose(limit: 30)
        }
        let got = Recorder<Int>()
        let task = Task {
            var count = 0
            for try await _ in EventSource(url: server.url(), configuration: quick).events {
                count += 1
                got.append(count)
            }
            return count
        }
        #expect(await got.wait(forCount: 1))
        task.cancel()
        #expect(try await task.value == 1)
        #expect(await server.closed.wait(forCount: 1))
    }
}

/// Waits until `condition` holds, checking it whenever the scheduler runs this task again; `false`
/// after `limit` seconds.
func waitUntil(limit: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(limit)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
