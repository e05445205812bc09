import HummingbirdWSClient
import NIOConcurrencyHelpers
import NIOCore
import ServerTestSupport
import Sluice
import SluiceFeed
import SluiceVapor
import Testing
import Vapor

extension OverLoopback {
/// Vapor's server takes no connection gate; what bounds a Vapor app's connections is Vapor's own
/// `idleTimeout` (sluice-feed and the Vapor example set it): a connection that neither reads nor
/// writes for that long is closed. These tests hold Vapor to what the guide says of it, and
/// Sluice's streams and sockets to staying open under it while their clients are there.
@Suite(.timeLimit(.minutes(2)))
struct VaporIdleTimeoutTests {
    /// A Vapor app on a loopback port whose server closes a connection idle for `idleTimeout`,
    /// serving `/events` (Server-Sent Events of `feed`, heartbeats every `heartbeat`) and `/ws`
    /// (a WebSocket of `feed`, pinged every `ping`).
    func withVaporServer(idleTimeout: TimeAmount, heartbeat: Duration?, ping: TimeAmount?, feed: EventFeed<ServerSentEvent>,
                         _ body: (Int) async throws -> Void) async throws {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        app.http.server.configuration.idleTimeout = idleTimeout
        let events = ServerSentEvents(stream: ServerSentEventStream(feed: feed, options: .init(heartbeat: heartbeat)))
        app.get("events") { request in events.response(to: request) }
        let socket = {
            var socket = WebSocketFeed(feed: feed)
            socket.pingInterval = ping
            return socket
        }()
        app.webSocket("ws", shouldUpgrade: socket.shouldUpgrade) { request, ws in socket.serve(ws, for: request) }
        let server = app.server
        try await server.start(address: .hostname("127.0.0.1", port: 0))
        let port = try #require(app.http.server.shared.localAddress?.port)
        do {
            try await body(port)
        } catch {
            try await app.asyncShutdown()
            await server.shutdown()
            throw error
        }
        try await app.asyncShutdown()
        await server.shutdown()
    }

    /// Waits until `count` idle timeouts have passed, as the server measures them: one silent
    /// connection after another, each closed by the server for its silence. Returns whether each was.
    func idleTimeoutsPass(_ count: Int, port: Int) async throws -> Bool {
        for _ in 0..<count {
            let silent = try await RawConnection.open(port: port)
            guard await silent.waitUntilClosed() else { return false }
        }
        return true
    }

    /// A client that opens a connection and sends part of a request head, then nothing, is closed
    /// once the connection has been idle for the timeout: the guide's advice bounds a silent head.
    @Test func aHeadThatStopsArrivingIsClosedAfterTheIdleTimeout() async throws {
        let feed = EventFeed(PassthroughSubject<ServerSentEvent, Never>())
        try await withVaporServer(idleTimeout: .milliseconds(500), heartbeat: nil, ping: nil, feed: feed) { port in
            let started = ContinuousClock.now
            let connection = try await RawConnection.open(port: port)
            try await connection.write("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(await connection.waitUntilClosed())
            #expect(ContinuousClock.now - started >= .milliseconds(500))
            #expect(connection.statusLine == nil)   // closed without an answer
        }
    }

    /// A stream whose heartbeats come more often than the idle timeout stays open across several
    /// timeouts and still gets the next event.
    @Test func anEventStreamWithHeartbeatsOutlivesTheIdleTimeout() async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject)
        try await withVaporServer(idleTimeout: .seconds(2), heartbeat: .milliseconds(250), ping: nil, feed: feed) { port in
            let client = try await SSEClient.connect(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            #expect(try await idleTimeoutsPass(3, port: port))
            #expect(client.frames.contains { $0.comments == ["heartbeat"] })   // all it was sent meanwhile
            subject.send(ServerSentEvent(data: "after"))
            #expect(await client.wait { $0.contains { $0.data == ["after"] } })
            #expect(feed.stats.connectedClients == 1)
            await client.close()
        }
    }

    /// The same stream without heartbeats is closed by the idle timeout (what `heartbeat: nil`
    /// costs on Vapor). Vapor's stream sees its connection closed at its next write: its client
    /// leaves the feed when the next event comes.
    @Test func anEventStreamWithoutHeartbeatsIsClosedByTheIdleTimeout() async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject)
        try await withVaporServer(idleTimeout: .milliseconds(500), heartbeat: nil, ping: nil, feed: feed) { port in
            let client = try await SSEClient.connect(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            #expect(await waitUntil { client.closed })
            #expect(client.events.isEmpty)
            subject.send(ServerSentEvent(data: "unread"))
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }

    /// A WebSocket client that answers the server's pings keeps its socket across several idle
    /// timeouts, and gets the next event.
    @Test func aWebSocketWhoseClientAnswersPingsOutlivesTheIdleTimeout() async throws {
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject)
        try await withVaporServer(idleTimeout: .seconds(2), heartbeat: nil, ping: .milliseconds(250), feed: feed) { port in
            let received = NIOLockedValueBox<[String]>([])
            var logger = Logger(label: "ws-client")
            logger.logLevel = .warning
            let client = Task {
                try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/ws", logger: logger) { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        guard case .text(let text) = message else { continue }
                        received.withLockedValue { $0.append(text) }
                        if text.contains("\"after\"") { break }   // the client closes its socket
                    }
                }
            }
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            #expect(try await idleTimeoutsPass(3, port: port))
            #expect(feed.stats.connectedClients == 1)
            subject.send(ServerSentEvent(data: "after"))
            let close = try await client.value
            #expect(close?.closeCode == .normalClosure)   // the client's own close, answered
            #expect(received.withLockedValue { $0 }.count == 1)
        }
    }

    /// A WebSocket client that never answers a ping is closed: the server pinged it, and closed
    /// its connection when the next ping found the first unanswered.
    @Test func aWebSocketWhoseClientNeverAnswersPingsIsClosed() async throws {
        let feed = EventFeed(PassthroughSubject<ServerSentEvent, Never>())
        try await withVaporServer(idleTimeout: .seconds(60), heartbeat: nil, ping: .milliseconds(200), feed: feed) { port in
            let socket = try await RawWebSocket.open(port: port, path: "/ws")
            #expect(await waitUntil { socket.statusLine == "HTTP/1.1 101 Switching Protocols" })
            #expect(await socket.waitUntilClosed())
            #expect(socket.opcodes.first == 0x9)   // a ping came first
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }
}
}
