import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import Sluice
import SluiceFeed
import SluiceHummingbird
import Testing

extension OverLoopback {
    /// A `ConnectionGate` in front of Hummingbird's router (`.http1(gate:)`) and of the event-loop
    /// path (`.eventStreams(_:gate:)`, a stream's connection and any other): every limit answered
    /// as it says, counted, logged. The limits' times are short so that each test waits on the
    /// close it causes; no test asserts how long anything took.
    @Suite struct ConnectionLimitsTests {
        enum Path: String, CaseIterable, CustomTestStringConvertible {
            case router, eventLoop
            var testDescription: String { rawValue }
        }

        /// A server on `path` with `limits`: `GET /hello` in the router, a stream of `/events/public`.
        private func withGatedServer(_ path: Path, _ limits: ConnectionLimits, logs: RecordingLogHandler.Store = .init(),
                                     _ body: (_ port: Int, _ gate: ConnectionGate, _ send: @Sendable (String) -> Void) async throws -> Void) async throws {
            let subject = PassthroughSubject<ServerSentEvent, Never>()
            let feed = EventFeed(subject, options: .init(replay: 16))
            let streams = TopicEventStreams(feeds: { _ in feed }, options: .init(heartbeat: nil))
            let router = Router()
            router.get("hello") { _, _ in "hello\n" }
            router.get("events/:topic") { request, context in
                await streams.response(to: request, topic: try context.parameters.require("topic"))
            }
            let gate = ConnectionGate(limits, logger: RecordingLogHandler.logger(logs))
            let server: HTTPServerBuilder = switch path {
            case .router: .http1(gate: gate)
            case .eventLoop: .eventStreams([.topics(streams, under: "events")], gate: gate)
            }
            try await withServer(router, server: server) { port, _ in
                try await body(port, gate, { subject.send(ServerSentEvent(data: $0)) })
            }
        }

        private static let hello = "GET /hello HTTP/1.1\r\nHost: here\r\n\r\n"

        @Test(arguments: Path.allCases) func aHeadThatDoesNotEndInTimeIsAnswered408AndClosed(path: Path) async throws {
            let logs = RecordingLogHandler.Store()
            // Generous: the served connection's head, written at once, must come within it, even under a sanitizer.
            try await withGatedServer(path, ConnectionLimits(headTimeout: .seconds(3)), logs: logs) { port, gate, _ in
                // A head that came whole is not timed: this connection outlives the slow ones below.
                let served = try await RawConnection.open(port: port)
                try await served.write(Self.hello)
                #expect(await served.wait { $0.hasSuffix("hello\n") })
                var slowOnes: [(String, RawConnection)] = []
                for start in ["GET /events/public HTTP/1.1\r\nHost: here\r\n", "GET /hel", ""] {
                    let slow = try await RawConnection.open(port: port)
                    await slow.send(start)
                    slowOnes.append((start, slow))
                }
                for (start, slow) in slowOnes {
                    #expect(await slow.waitUntilClosed(), "\(start)")
                    #expect(slow.statusLine == "HTTP/1.1 408 Request Timeout", "\(start)")
                    #expect(slow.received.contains("\r\nConnection: close\r\n"))
                }
                #expect(gate.counts.closed[.headTimeout] == 3)
                #expect(await waitUntil { gate.counts.open == 1 })
                let lines = logs.records(containing: "connection closed by its limits")
                #expect(lines.count == 3 && lines.allSatisfy { $0.metadata["reason"] == "head_timeout" && $0.level == .notice })
                #expect(!served.closed && !served.received.contains("408"))
                try await served.write(Self.hello)   // and it is served again
                #expect(await served.wait { $0.components(separatedBy: "hello\n").count == 3 })
                await served.close()
            }
        }

        @Test(arguments: Path.allCases) func aRequestLineTooLongIsAnswered414AtOnce(path: Path) async throws {
            try await withGatedServer(path, ConnectionLimits(headTimeout: nil, maximumRequestLine: 1_000)) { port, gate, _ in
                for target in ["/events/public?topic=" + String(repeating: "a", count: 2_000), "/" + String(repeating: "b", count: 200_000)] {
                    let client = try await RawConnection.open(port: port)
                    await client.send("GET \(target)")   // the line never ends: the answer cannot wait for it
                    #expect(await client.waitUntilClosed())
                    #expect(client.statusLine == "HTTP/1.1 414 URI Too Long")
                }
                // A line at the bound is served.
                let atBound = try await RawConnection.open(port: port)
                let line = "GET /hello?" + String(repeating: "c", count: 1_000 - 20) + " HTTP/1.1"
                #expect(line.utf8.count == 1_000)
                try await atBound.write(line + "\r\nHost: here\r\n\r\n")
                #expect(await atBound.wait { $0.hasSuffix("hello\n") })
                await atBound.close()
                #expect(gate.counts.closed[.requestLineTooLong] == 2)
            }
        }

        @Test(arguments: Path.allCases) func aHeadTooLargeIsAnswered431AtOnce(path: Path) async throws {
            try await withGatedServer(path, ConnectionLimits(headTimeout: nil, maximumHead: 4_096)) { port, gate, _ in
                let client = try await RawConnection.open(port: port)
                let filler = (0..<100).map { "X-Filler-\($0): " + String(repeating: "f", count: 100) + "\r\n" }.joined()
                await client.send("GET /events/public HTTP/1.1\r\n" + filler)   // never ended
                #expect(await client.waitUntilClosed())
                #expect(client.statusLine == "HTTP/1.1 431 Request Header Fields Too Large")
                #expect(gate.counts.closed[.headTooLarge] == 1)
                // A second request on a kept-alive connection is held to the bound too.
                let keptAlive = try await RawConnection.open(port: port)
                try await keptAlive.write(Self.hello)
                #expect(await keptAlive.wait { $0.hasSuffix("hello\n") })
                await keptAlive.send("GET /hello HTTP/1.1\r\n" + filler)
                #expect(await keptAlive.waitUntilClosed())
                #expect(keptAlive.received.contains("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
                #expect(gate.counts.closed[.headTooLarge] == 2)
            }
        }

        @Test(arguments: Path.allCases) func connectionsOverTheLimitAreAnswered503UntilOneCloses(path: Path) async throws {
            let logs = RecordingLogHandler.Store()
            try await withGatedServer(path, ConnectionLimits(headTimeout: nil, maximumConnections: 2), logs: logs) { port, gate, send in
                let stream = try await RawConnection.open(port: port)
                try await stream.write("GET /events/public HTTP/1.1\r\nHost: here\r\n\r\n")
                #expect(await stream.wait { $0.contains("retry: ") })
                let quiet = try await RawConnection.open(port: port)   // sends nothing: holds its place
                #expect(await waitUntil { gate.counts.open == 2 })
                for _ in 0..<3 {
                    let refused = try await RawConnection.open(port: port)
                    await refused.send(Self.hello)
                    #expect(await refused.waitUntilClosed())
                    #expect(refused.statusLine == "HTTP/1.1 503 Service Unavailable")
                    #expect(refused.received.contains("\r\nRetry-After: 1\r\n"))
                }
                #expect(gate.counts.closed[.full] == 3)
                #expect(gate.counts.open == 2)
                // The admitted stream goes on.
                send("still here")
                #expect(await stream.wait { $0.contains("data: still here\n\n") })
                // One refusal logged as a warning; the next two within the second are counted on the next line.
                let refusals = logs.records(containing: "connection refused")
                #expect(refusals.first?.level == .warning && refusals.first?.metadata["limit"] == "2")
                await quiet.close()
                #expect(await waitUntil { gate.counts.open == 1 })
                let admitted = try await RawConnection.open(port: port)
                try await admitted.write(Self.hello)
                #expect(await admitted.wait { $0.hasSuffix("hello\n") })
                #expect(admitted.statusLine == "HTTP/1.1 200 OK")
                await admitted.close()
                await stream.close()
            }
        }

        @Test func connectionsOverTheLimitOfTheirAddressAreAnswered503() async throws {
            try await withGatedServer(.eventLoop, ConnectionLimits(headTimeout: nil, maximumConnectionsPerAddress: 1)) { port, gate, _ in
                let first = try await RawConnection.open(port: port)
                #expect(await waitUntil { gate.counts.open == 1 })
                let second = try await RawConnection.open(port: port)
                #expect(await second.waitUntilClosed())
                #expect(second.statusLine == "HTTP/1.1 503 Service Unavailable")
                #expect(gate.counts.closed[.addressFull] == 1)
                await first.close()
                #expect(await waitUntil { gate.counts.open == 0 })
                let third = try await RawConnection.open(port: port)
                try await third.write(Self.hello)
                #expect(await third.wait { $0.hasSuffix("hello\n") })
                await third.close()
            }
        }

        @Test(arguments: Path.allCases) func anIdleKeptAliveConnectionClosesAndAStreamDoesNot(path: Path) async throws {
            let logs = RecordingLogHandler.Store()
            try await withGatedServer(path, ConnectionLimits(headTimeout: nil, idleTimeout: .milliseconds(200)), logs: logs) { port, gate, send in
                let stream = try await RawConnection.open(port: port)
                try await stream.write("GET /events/public HTTP/1.1\r\nHost: here\r\n\r\n")
                #expect(await stream.wait { $0.contains("retry: ") })
                let keptAlive = try await RawConnection.open(port: port)
                try await keptAlive.write(Self.hello)
                #expect(await keptAlive.wait { $0.hasSuffix("hello\n") })
                #expect(await keptAlive.waitUntilClosed())
                #expect(keptAlive.received.components(separatedBy: "HTTP/1.1 ").count == 2)   // its answer, nothing after
                #expect(gate.counts.closed[.idle] == 1)
                #expect(logs.records(containing: "connection closed by its limits").first?.level == .debug)
                // The stream, silent all along, is not idle: it is open and gets the next event.
                #expect(!stream.closed)
                send("after")
                #expect(await stream.wait { $0.contains("data: after\n\n") })
                await stream.close()
            }
        }

        @Test(arguments: [false, true]) func anUpgradedWebSocketIsNotClosedAsIdle(fromTheEventLoop: Bool) async throws {
            let gate = ConnectionGate(ConnectionLimits(headTimeout: nil, idleTimeout: .milliseconds(100)))
            let sockets = Router(context: BasicWebSocketRequestContext.self)
            sockets.ws("ws") { inbound, outbound, _ in
                try await outbound.write(.text("hi"))
                for try await frame in inbound where frame.opcode == .text {
                    try await outbound.write(.text("again"))
                }
            }
            let router = Router()
            router.get("hello") { _, _ in "hello\n" }
            let server: HTTPServerBuilder = fromTheEventLoop
                ? .eventStreams([], webSocketRouter: sockets, gate: gate) : .http1WebSocketUpgrade(webSocketRouter: sockets, gate: gate)
            try await withServer(router, server: server) { port, _ in
                let socket = try await RawWebSocket.open(port: port, path: "/ws")
                #expect(await waitUntil { socket.opcodes == [1] })
                #expect(socket.statusLine == "HTTP/1.1 101 Switching Protocols")
                // A kept-alive HTTP connection beside it is closed once idle; the socket, silent as long, is not.
                let keptAlive = try await RawConnection.open(port: port)
                try await keptAlive.write(Self.hello)
                #expect(await keptAlive.wait { $0.hasSuffix("hello\n") })
                #expect(await keptAlive.waitUntilClosed())
                #expect(gate.counts.closed[.idle] == 1)
                #expect(await waitUntil { gate.counts.open == 1 })
                #expect(gate.counts.closed.values.reduce(0, +) == 1)
                await socket.close()
                #expect(await waitUntil { gate.counts.open == 0 })
            }
        }

        /// Server/README.md's snippet ("Connection limits"), as it is written there, compiles; the
        /// builders it names are the ones the tests above serve with.
        @Test func theGuidesSnippetIsTheOneCompiledHere() throws {
            let logger = Logger(label: "test")
            let streams = TopicEventStreams(feeds: { _ in EventFeed(Empty<ServerSentEvent, Never>()) })
            let router = Router()
            let sockets = Router(context: BasicWebSocketRequestContext.self)
            // README: "Connection limits"
            let gate = ConnectionGate(ConnectionLimits(headTimeout: .seconds(20)), logger: logger)
            let app = Application(router: router,
                                  server: .eventStreams([.topics(streams, under: "events")], webSocketRouter: sockets, gate: gate))
            // or .http1(gate: gate), .http1WebSocketUpgrade(webSocketRouter: sockets, gate: gate)

            _ = app
            #expect(gate.limits.headTimeout == .seconds(20) && gate.limits.maximumHead == 32_768)
            let readme = try String(contentsOfFile: #filePath.replacingOccurrences(
                of: "Tests/SluiceHummingbirdTests/ConnectionLimitsTests.swift", with: "README.md"), encoding: .utf8)
            #expect(readme.contains("""
                let gate = ConnectionGate(ConnectionLimits(headTimeout: .seconds(20)), logger: logger)
                let app = Application(router: router,
                                      server: .eventStreams([.topics(streams, under: "events")], webSocketRouter: sockets, gate: gate))
                // or .http1(gate: gate), .http1WebSocketUpgrade(webSocketRouter: sockets, gate: gate)
                """))
        }
    }
}
