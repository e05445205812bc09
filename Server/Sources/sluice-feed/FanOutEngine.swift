import SluiceFeed
import Hummingbird
import NIOCore
import Synchronization

/// How the server fans its one stream of events out to its SSE clients (`--engine`). Sluice's
/// engine is what this package offers; the others are what server teams use today, served by the
/// same server so that the fan-out benchmark compares only the fan-out.
protocol FanOutEngine: Sendable {
    /// Hands one event to every connected client. Called by ``FeedInput`` only, one call at a
    /// time, in the order of the events' ids; must not wait for any client.
    func publish(_ event: NumberedEvent)
    /// The `text/event-stream` response for one client of `GET /events`.
    func eventsResponse(to request: Request) -> Response
    /// The engine's counters now.
    var stats: EngineStats { get }
    /// Ends every client's stream after what it has (the last event: `event: shutdown`), and any
    /// client that comes later at once. Idempotent.
    func finish()
}

/// One event: its number in the feed (the SSE `id`, from 1) and its text (the SSE `data`).
struct NumberedEvent: Sendable {
    let id: UInt64
    let text: String

    /// The event as a Server-Sent Events frame, `id: <n>` then one `data:` line per line of text,
    /// encoded once for all clients of the engines that write frames themselves.
    var frame: Frame {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(text.utf8.count + 32)
        buffer.writeStaticString("id: ")
        buffer.writeString(String(id))
        buffer.writeStaticString("\n")
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            buffer.writeStaticString("data: ")
            buffer.writeSubstring(line)
            buffer.writeStaticString("\n")
        }
        buffer.writeStaticString("\n")
        return Frame(id: id, bytes: buffer)
    }
}

/// What `GET /stats` reports of the fan-out (the process's CPU time and memory are added there).
struct EngineStats: Sendable {
    var clients = 0
    var published = 0
    var delivered = 0
    var dropped = 0
    var disconnected = 0
}

extension EngineStats {
    /// A Sluice feed's counters.
    init(_ stats: FeedStats) {
        self.init(clients: stats.connectedClients, published: Int(stats.eventsPublished), delivered: stats.eventsDelivered,
                  dropped: stats.eventsDropped, disconnected: stats.clientsDisconnected)
    }
}

/// The counters of the engines other than Sluice's (which counts in its feed's `FeedStats`):
/// atomics, each updated where it happens without a shared lock.
final class EngineCounters: Sendable {
    let clients = Atomic<Int>(0)
    let published = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)

    var stats: EngineStats {
        EngineStats(clients: clients.load(ordering: .relaxed), published: published.load(ordering: .relaxed),
                    delivered: delivered.load(ordering: .relaxed), dropped: dropped.load(ordering: .relaxed))
    }
}
