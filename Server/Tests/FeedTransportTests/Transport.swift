import NIOConcurrencyHelpers
@_exported import ServerTestSupport
import SluiceFeed
import Testing

/// The suites that run a server and clients on loopback: one at a time (each test in order), so
/// that their timings and resident-memory readings are not disturbed by one another.
@Suite(.serialized) enum OverLoopback {}

/// The HTTP frameworks the feed is served by: every test of this target runs against each.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case hummingbird
    /// Hummingbird with `GET /events` served from the event loop (`.eventStreams`).
    case hummingbirdLoop = "hummingbird, from the event loop"
    case vapor

    var testDescription: String { rawValue }
}

/// What a test server serves: `GET /events` (Server-Sent Events of `events`) and `/ws` (WebSocket
/// of `socket`, the client's text messages into `heard` when given; else nobody subscribes to
/// them; `upgrading` is called once a WebSocket client's start is fixed, before its upgrade is
/// answered). `finishing` is finished on the framework's graceful shutdown (Hummingbird: a service
/// of the application's `ServiceGroup`; Vapor: ``FeedShutdown``). `/topics?topic=…` is a socket
/// of `topics` (each client following the `topic` parameters, then what it subscribes to).
struct Endpoints: Sendable {
    var events: ServerSentEventStream<ServerSentEvent>?
    var socket: FeedSocketStream<String>?
    var heard: NIOLockedValueBox<[String]>?
    var upgrading: (@Sendable () -> Void)?
    var finishing: EventFeed<ServerSentEvent>?
    var topics: SocketTopics?
}

/// Sockets of topics: `sockets`' clients, of `feeds`.
struct SocketTopics: Sendable {
    let sockets: FeedSocketTopics<ServerSentEvent>
    let feeds: TopicFeeds
}

/// Runs `endpoints` on `transport`, on a loopback port the system picks, for the duration of
/// `body`; `body` gets the port and a function that shuts the server down gracefully the
/// framework's way (returning once it has stopped). Shut down afterwards if `body` did not.
func withFeedServer<R>(_ transport: Transport, _ endpoints: Endpoints,
                       _ body: (_ port: Int, _ shutDown: @escaping @Sendable () async throws -> Void) async throws -> R) async throws -> R {
    let (port, shutDown) = switch transport {
    case .hummingbird: try await startHummingbirdServer(endpoints)
    case .hummingbirdLoop: try await startHummingbirdServer(endpoints, fromTheEventLoop: true)
    case .vapor: try await startVaporServer(endpoints)
    }
    do {
        let result = try await body(port, shutDown)
        try await shutDown()
        return result
    } catch {
        try? await shutDown()
        throw error
    }
}

/// `action` the first time the function returned is called; later calls return at once.
func once(_ action: @escaping @Sendable () async throws -> Void) -> @Sendable () async throws -> Void {
    let done = NIOLockedValueBox(false)
    return {
        guard !done.withLockedValue({ let was = $0; $0 = true; return was }) else { return }
        try await action()
    }
}
