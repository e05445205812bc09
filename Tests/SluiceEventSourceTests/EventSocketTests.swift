import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SluiceEventSource
import Testing
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

private typealias Frames = LoopbackServer.Connection

/// A configuration for tests: reconnects at once.
private let quick = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumBackoff: .milliseconds(50))

/// The handshake, the SHA-1 behind it, and a feed's messages, read without a network.
@Suite("EventSocket messages")
struct SocketMessageTests {
    @Test func sha1AndTheAcceptValueAreTheStandardsExamples() {
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.hash([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)   // two blocks
        #expect(hex(SHA1.hash(long)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        // RFC 6455, section 1.3.
        #expect(WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==").expectedAccept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func aFeedsMessagesAreItsEventsAndTypedControlEvents() {
        var decoder = SocketMessageDecoder(lastEventID: "e-0")
        for text in [#"{"id":"e-1","data":"hello"}"#, #"{"event":"dropped","dropped":3}"#, #"{"event":"reset","missed":null}"#,
                     #"{"event":"reset","id":"e-9","missed":7}"#, #"{"event":"shutdown","reason":"deploy"}"#, "plain text",
                     #"{"id":"e-2","data":{"p":1}}"#, #"{"id":"e-\u0000","data":"x"}"#, #"{"id":"e-3","event":"price","data":"9"}"#] {
            decoder.take(Data(text.utf8))
        }
        var events: [EventSource.Event] = []
        while let message = decoder.next() { events.append(EventSource.Event(recognizing: message)) }
        #expect(events == [
            .event(.init(id: "e-1", data: "hello")),
            .dropped(count: 3),
            .reset(missed: nil),
            .reset(missed: 7),
            .shutdown(reason: "deploy"),
            .event(.init(id: "e-9", data: "plain text")),   // a reset's id is where the client stands
            .event(.init(id: "e-2", data: #"{"p":1}"#)),
            .event(.init(id: "e-2", data: "x")),   // an id with NUL is ignored
            .event(.init(id: "e-3", event: "price", data: "9")),
        ])
        #expect(decoder.lastEventID == "e-3")
        #expect(decoder.next() == nil)
    }
}

/// A connection that records what the driver asks of it.
private final class RecordedConnection: EventStreamConnection, @unchecked Sendable {
    let calls = Recorder<String>()
    var pauseMethod: EventStreamPauseMethod { .suspend }
    func cancel() { calls.append("cancel") }
    func suspend() { calls.append("suspend") }
    func resume() { calls.append("resume") }
}

@Suite("EventStreamDriver")
struct EventStreamDriverTests {
    @Test func aSuspendThatArrivesAfterTheResumeDoesNotStopTheReading() {
        // The reading thread decides to suspend (the buffer is full) and, before it gets to it,
        // the subscriber's thread takes the buffer down and resumes: the late suspend must not
        // leave the connection suspended while the machine streams.
        let connection = RecordedConnection()
        let consumer = EventSourceConsumer(receive: { _ in .none }, complete: { _ in })
        let driver = EventStreamDriver<SocketMessageDecoder>(
            name: "EventSocket", configuration: EventSource.Configuration(bufferSize: 2), consumer: consumer,
            lastEventID: "", onConnectionEvent: nil, connect: { driver, id, _, _ in
                _ = driver.attach(connection, id: id)
                _ = driver.responded(id: id, .stream)
            })
        driver.request(.max(1))
        for n in 1...3 { driver.received(id: 1, Data(#"{"id":"e-\#(n)","data":"x"}"#.utf8)) }
        #expect(connection.calls.values == ["suspend"])
        driver.request(.max(1))
        #expect(connection.calls.values == ["suspend", "resume"])
        // The stale suspend of the earlier decision, performed now.
        driver.applyPause(connection, id: 1)
        #expect(connection.calls.values == ["suspend", "resume"])
        // And a stale resume changes nothing either.
        driver.applyPause(connection, id: 1)
        #expect(connection.calls.values == ["suspend", "resume"])
        driver.cancel()
    }
}

@Suite("EventSocket", .serialized, .timeLimit(.minutes(1)))
struct EventSocketTests {
    @Test func messagesInPiecesFragmentsAndPingsArriveWhole() async throws {
        let pongs = Recorder<[UInt8]>()
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            // A message written a byte at a time; a message in three fragments with a ping between
            // them; a binary message.
            for byte in Frames.event(1) { connection.write([byte]) }
            connection.write(Frames.frame(opcode: 0x1, Array(#"{"id":"e-2","#.utf8), final: false))
            connection.write(Frames.frame(opcode: 0x9, Array("are you there".utf8)))
            connection.write(Frames.frame(opcode: 0x0, Array(#""data":"#.utf8), final: false))
            connection.write(Frames.frame(opcode: 0x0, Array(#""two"}"#.utf8)))
            connection.write(Frames.frame(opcode: 0x2, Array("binary".utf8)))
            while let frame = connection.readFrame(), frame.opcode != 0x8 {
                if frame.opcode == 0xA { pongs.append(frame.payload) }
            }
        }
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 3))
        #expect(subscriber.events.values == [.event(.init(id: "e-1", data: "event 1")), .event(.init(id: "e-2", data: "two")),
                                             .event(.init(id: "e-2", data: "binary"))])
        #expect(await pongs.wait(forCount: 1))
        #expect(pongs.values == [Array("are you there".utf8)])
        subscriber.cancel()
    }

    /// While its subscriber takes nothing and its buffer is full, the client reads nothing: a ping
    /// waits behind the events, unanswered, until the subscriber asks again (the pause's effect,
    /// documented on `EventSocket`: a server that closes sockets whose pings go unanswered closes
    /// a long-paused one, and the client resumes from its last event).
    @Test func aPausedClientAnswersAPingOnlyOnceItReadsAgain() async throws {
        let answeredWhilePaused = Recorder<Bool>()
        let pongs = Recorder<[UInt8]>()
        let paused = Recorder<Bool>()
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            connection.write((1...40).flatMap { Frames.event($0) })   // far more than the client buffers
            connection.write(Frames.frame(opcode: 0x9, Array("still there?".utf8)))
            // Bounded negative observation: nothing comes while the subscriber asks for nothing.
            answeredWhilePaused.append(connection.readFrame(limit: 2) != nil)
            paused.append(false)
            while let frame = connection.readFrame(limit: 60), frame.opcode != 0x8 {
                if frame.opcode == 0xA { pongs.append(frame.payload) }
            }
        }
        defer { server.stop() }
        let subscriber = RecordingSubscriber(initialDemand: .max(1))
        EventSocket(url: server.webSocketURL(), configuration: EventSource.Configuration(bufferSize: 2)).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(await paused.wait(limit: 60) { !$0.isEmpty })
        #expect(answeredWhilePaused.values == [false])
        #expect(pongs.values.isEmpty)
        subscriber.request(.unlimited)
        #expect(await subscriber.events.wait(forCount: 40))
        #expect(await pongs.wait(limit: 60) { !$0.isEmpty })
        #expect(pongs.values == [Array("still there?".utf8)])
        subscriber.cancel()
    }

    @Test func aStreamThatEndsResumesWithLastEventIdWithoutRepeatingAnything() async throws {
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            switch connection.index {
            case 0:
                // Closed by the server, normally.
                connection.write(Frames.event(1) + Frames.event(2) + Frames.close(1000))
                _ = connection.readFrame()   // the client's answering close
                connection.close()
            case 1:
                // Cut mid-frame: the half message is never published.
                connection.write(Frames.event(3) + Array(Frames.event(4).prefix(9)))
                connection.close()
            case 2:
                // Going away without a word, after nothing.
                connection.close()
            default:
                connection.write(Frames.event(4) + Frames.event(5))
                _ = connection.waitForClientClose()
            }
        }
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL("/ws?topic=a"), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 5))
        #expect(subscriber.data == (1...5).map { "event \($0)" })
        let requests = server.requests.values
        #expect(requests.map { URLComponents(string: $0.path)?.queryItems ?? [] }.prefix(4) == [
            [URLQueryItem(name: "topic", value: "a")],
            [URLQueryItem(name: "topic", value: "a"), URLQueryItem(name: "lastEventId", value: "e-2")],
            [URLQueryItem(name: "topic", value: "a"), URLQueryItem(name: "lastEventId", value: "e-3")],
            [URLQueryItem(name: "topic", value: "a"), URLQueryItem(name: "lastEventId", value: "e-3")],
        ])
        #expect(requests.first?.headers["sec-websocket-version"] == "13")
        subscriber.cancel()
    }

    @Test func aCallersLastEventIdAndHeadersAreWhereItStarts() async throws {
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            let after = Int(connection.lastEventId?.dropFirst(2) ?? "0") ?? 0
            connection.write(Frames.event(after + 1))
            _ = connection.waitForClientClose()
        }
        var request = URLRequest(url: server.webSocketURL("/ws?lastEventId=e-41"))
        request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
        let subscriber = RecordingSubscriber()
        EventSocket(request: request, configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(subscriber.data == ["event 42"])
        #expect(server.requests.values.first?.headers["authorization"] == "Bearer token")
        subscriber.cancel()
    }

    @Test func refusalsAreRetriedWithBackoffUntilTheStreamOpens() async throws {
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0: connection.respond(status: 503, reason: "Service Unavailable")
            case 1: connection.respond(status: 429, reason: "Too Many Requests")
            case 2:
                // A full feed: accepted, then closed "try again later".
                connection.acceptWebSocket()
                connection.write(Frames.close(1013, "the feed is full"))
                connection.close()
            default:
                connection.acceptWebSocket()
                connection.write(Frames.event(1))
                _ = connection.waitForClientClose()
            }
        }
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(subscriber.data == ["event 1"])
        #expect(server.requests.values.count == 4)
        #expect(subscriber.completions.values.isEmpty)
        subscriber.cancel()
    }

    @Test(arguments: [
        (204, 0, Subscribers.Completion<EventSourceError>.finished),
        (401, 0, .failure(.status(401))),
        (404, 0, .failure(.status(404))),
        (101, 1008, .failure(.closed(code: 1008, reason: "no"))),
        (101, 4000, .failure(.closed(code: 4000, reason: "no"))),
    ])
    func answersThatRetryingWillNotChangeEndIt(status: Int, closeCode: UInt16, expected: Subscribers.Completion<EventSourceError>) async throws {
        let server = try LoopbackServer { connection in
            guard status == 101 else { return connection.respond(status: status, reason: "Status") }
            connection.acceptWebSocket()
            connection.write(Frames.event(1) + Frames.close(closeCode, "no"))
            _ = connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [expected])
        #expect(subscriber.data == (status == 101 ? ["event 1"] : []))   // what came before the end is delivered
        #expect(server.requests.values.count == 1)
    }

    @Test func aServerThatBreaksTheProtocolFails() async throws {
        for misbehaviour in 0..<3 {
            let server = try LoopbackServer { connection in
                switch misbehaviour {
                case 0: connection.acceptWebSocket(accept: "wrong")
                case 1:
                    connection.acceptWebSocket()
                    connection.write([0x81, 0x81, 1, 2, 3, 4, 0x41])   // a masked frame
                default:
                    connection.acceptWebSocket()
                    connection.write(Frames.frame(opcode: 0x0, Array("x".utf8)))   // a continuation of nothing
                }
                _ = connection.waitForClientClose()
            }
            let subscriber = RecordingSubscriber()
            EventSocket(url: server.webSocketURL(), configuration: quick).subscribe(subscriber)
            #expect(await subscriber.completions.wait(forCount: 1))
            guard case .failure(.protocolViolation) = subscriber.completions.values.first else {
                Issue.record("misbehaviour \(misbehaviour): \(subscriber.completions.values)")
                continue
            }
        }
    }

    @Test func aMessageOverTheLimitIsRefusedWith1009AndFails() async throws {
        let closes = Recorder<[UInt8]>()
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            connection.write(Frames.event(1) + Frames.text(String(repeating: "x", count: 300)))
            if let frame = connection.readFrame(), frame.opcode == 0x8 { closes.append(frame.payload) }
        }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumEventSize: 256)
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.eventTooLarge(limit: 256))])
        #expect(subscriber.data == ["event 1"])
        #expect(await closes.wait(forCount: 1))
        #expect(closes.values.first.map { Array($0.prefix(2)) } == [0x03, 0xF1])   // 1009
    }

    @Test func aSlowSubscriberHoldsNoMoreThanItAskedForPlusTheBufferOnOneConnection() async throws {
        let count = 2_000
        let written = Recorder<Int>()
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            for n in 1...count {
                guard connection.write(Frames.event(n, String(repeating: "p", count: 10_000))) else { return }
                written.append(n)
            }
            _ = connection.waitForClientClose(limit: 60)
        }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), bufferSize: 4)
        let subscriber = RecordingSubscriber(initialDemand: .max(1))
        EventSocket(url: server.webSocketURL(), configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        let driver = try #require(subscriber.socketDriver)
        #expect(await waitUntil { driver.bufferedCount == 4 })
        // It stopped reading: the server's writes block once the socket buffers are full (20 MB).
        #expect(await written.wait { _ in true })
        try await Task.sleep(for: .milliseconds(200))   // time for more to be read, were it reading
        #expect(driver.bufferedCount == 4)
        #expect(written.values.count < count)
        // Taking the events one at a time, it never holds more than the buffer, and reads them all
        // in order over the one connection.
        for _ in 2...count {
            subscriber.request(.max(1))
            #expect(driver.bufferedCount <= 4)
        }
        #expect(await subscriber.events.wait(forCount: count, limit: 30))
        #expect(subscriber.events.values.compactMap(\.message?.id) == (1...count).map { "e-\($0)" })
        #expect(server.requests.values.count == 1)
        subscriber.cancel()
    }

    @Test func aForAwaitLoopThatStopsAndRestartsTheReadingThousandsOfTimesGetsEverything() async throws {
        // A buffer of 2 and a loop asking for one event at a time: the reading thread suspends the
        // connection as the loop's thread resumes it, over and over. A resume that lands before
        // the suspend decided just earlier must not leave the connection stopped for good.
        let count = 20_000
        let server = try LoopbackServer { connection in
            guard connection.index == 0 else { return connection.respond(status: 204, reason: "No Content") }
            connection.acceptWebSocket()
            connection.write((1...count).flatMap { Frames.event($0) } + Frames.close(1000))
            _ = connection.readFrame(limit: 60)
            connection.close()
        }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), bufferSize: 2)
        var received = 0
        for try await event in EventSocket(url: server.webSocketURL(), configuration: configuration).events {
            received += 1
            #expect(event.message?.id == "e-\(received)")
        }
        #expect(received == count)
    }

    @Test func aSilentStreamIsPingedThenTakenAsLost() async throws {
        let pings = Recorder<Int>()
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            guard connection.index == 0 else {
                connection.write(Frames.event(2))
                _ = connection.waitForClientClose()
                return
            }
            connection.write(Frames.event(1))
            // Silent: no answer to the client's ping.
            while let frame = connection.readFrame() {
                if frame.opcode == 0x9 { pings.append(connection.index) }
            }
        }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), idleTimeout: .milliseconds(300))
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 2))
        #expect(await pings.wait(forCount: 1))
        #expect(pings.values == [0])
        #expect(server.requests.values.map { $0.headers["sec-websocket-key"] != nil } == [true, true])
        #expect(URLComponents(string: server.requests.values[1].path)?.queryItems?.first?.value == "e-1")
        subscriber.cancel()
    }

    @Test func aPingedStreamThatAnswersStaysOpen() async throws {
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            connection.write(Frames.event(1))
            var answered = 0
            while let frame = connection.readFrame() {
                guard frame.opcode == 0x9 else { continue }
                connection.write(Frames.frame(opcode: 0xA, frame.payload))
                answered += 1
                if answered == 3 { connection.write(Frames.event(2)) }
            }
        }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), idleTimeout: .milliseconds(200))
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 2))
        #expect(server.requests.values.count == 1)
        subscriber.cancel()
    }

    @Test func cancelClosesTheConnectionAtOnce() async throws {
        let closed = Recorder<Bool>()
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            connection.write(Frames.event(1))
            closed.append(connection.waitForClientClose())
        }
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        subscriber.cancel()
        #expect(await closed.wait(forCount: 1))
        #expect(closed.values == [true])
        #expect(subscriber.completions.values.isEmpty)
    }

    #if canImport(Glibc)
    @Test func aProcessTheAppStartsDoesNotHoldTheConnection() async throws {
        // The connection is open when the app starts a process; when the client closes it (here
        // after the server's close), the server must see it closed — not kept open by the child.
        let started = Recorder<Bool>()
        let closed = Recorder<Bool>()
        let server = try LoopbackServer { connection in
            connection.acceptWebSocket()
            connection.write(Frames.event(1))
            _ = started.wait(forCountBlocking: 1)
            connection.write(Frames.close(1008, "go"))
            _ = connection.readFrame()   // the client's answering close
            closed.append(connection.waitForClientClose(limit: 10))
        }
        let subscriber = RecordingSubscriber()
        EventSocket(url: server.webSocketURL(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        var pid: pid_t = 0
        let arguments: [String] = ["/bin/sleep", "30"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0)
        defer { kill(pid, SIGKILL); waitpid(pid, nil, 0) }
        started.append(true)
        #expect(await closed.wait(forCount: 1, limit: 20))
        #expect(closed.values == [true])
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.closed(code: 1008, reason: "go"))])
    }
    #endif

    @Test func forAwaitReadsResumesAndEndsAt204() async throws {
        let server = try LoopbackServer { connection in
            guard connection.index < 2 else { return connection.respond(status: 204, reason: "No Content") }
            connection.acceptWebSocket()
            let after = Int(connection.lastEventId?.dropFirst(2) ?? "0") ?? 0
            connection.write(Frames.event(after + 1) + Frames.event(after + 2) + Frames.close(1001))
            _ = connection.readFrame()
            connection.close()
        }
        var data: [String] = []
        for try await event in EventSocket(url: server.webSocketURL(), configuration: quick).events {
            data.append(event.message?.data ?? "")
        }
        #expect(data == ["event 1", "event 2", "event 3", "event 4"])
    }

    @Test func anInvalidURLFails() async {
        let subscriber = RecordingSubscriber()
        EventSocket(url: URL(string: "http://127.0.0.1/ws")!).subscribe(subscriber)
        #expect(subscriber.completions.values == [.failure(.invalidRequest)])
        await #expect(throws: EventSourceError.invalidRequest) {
            for try await _ in EventSocket(url: URL(string: "file:///tmp/x")!).events {}
        }
    }

    #if !canImport(Darwin) && !TLS
    /// Without the trait `TLS`, `wss:` goes to FoundationNetworking's `URLSessionWebSocketTask`:
    /// with Debian's libcurl, built without WebSocket support, it fails at once rather than
    /// retrying for ever, with a sentence that names the trait.
    @Test func wssWithoutACurlWebSocketFailsAtOnce() async throws {
        let subscriber = RecordingSubscriber()
        EventSocket(url: URL(string: "wss://127.0.0.1:9/ws")!, configuration: quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.webSocketUnavailable)])
        #expect(EventSourceError.webSocketUnavailable.description.contains("--traits TLS"))
    }
    #endif
}
