import Foundation
import Hummingbird
import HummingbirdWebSocket
import Sluice
import SluiceHummingbird

/// Sluice's engine: a `PassthroughSubject` into an `EventFeed`, each client its own subscriber
/// with its own demand, buffer and `SlowClientPolicy` — over SSE (`ServerSentEvents`: `retry:`,
/// heartbeats, resume after `Last-Event-ID`) and over WebSocket (`WebSocketFeed`).
///
/// Each event is encoded once, as a `ServerSentEvent`, for every client. The feed numbers events
/// from 1 as they come, as ``FeedInput`` does, under an epoch of its own: its ids are
/// `<epoch>-<n>`, so a client with an id of another instance, or from before a restart, is reset
/// rather than replayed the wrong events.
final class SluiceEngine: FanOutEngine {
    private let subject = PassthroughSubject<ServerSentEvent, Never>()
    /// The feed, a `Service`: it finishes on graceful shutdown.
    let feed: EventFeed<ServerSentEvent>
    /// Its streams.
    let events: ServerSentEvents<ServerSentEvent>

    init(policy: SlowClientPolicy) {
        feed = EventFeed(subject, options: .init(replay: 1_024, policy: policy))
        events = ServerSentEvents(feed: feed)
    }

    func publish(_ event: NumberedEvent) {
        subject.send(ServerSentEvent(data: event.text))
    }

    func eventsResponse(to request: Request) -> Response {
        events.response(to: request)
    }

    /// Serves `feed` on one WebSocket connection from the start its upgrade fixed, each event a text message of JSON,
    /// `{"id":"<epoch>-<n>","data":"…"}`; each text message the client sends is handed to `post`.
    static func serveWebSocket(feed: EventFeed<ServerSentEvent>, inbound: WebSocketInboundStream,
                               outbound: WebSocketOutboundWriter, context: WebSocketRouterContext<FeedWebSocketRequestContext>,
                               post: @escaping @Sendable (String) async -> Void) async throws {
        let socket = WebSocketFeed(feed: feed)
        try await socket.serve(inbound: inbound, outbound: outbound, context: context, maxMessageSize: 64 * 1024) { incoming in
            incoming.sink(receiveCompletion: { _ in }) { message in
                if case .text(let text) = message { Task { await post(text) } }
            }
        }
    }

    var stats: EngineStats { EngineStats(feed.stats) }

    func finish() { feed.finish() }
}

/// `text` as a JSON string literal (a string alone encodes as one).
func jsonString(_ text: String) -> String {
    String(decoding: (try? JSONEncoder().encode(text)) ?? Data(#""""#.utf8), as: UTF8.self)
}
