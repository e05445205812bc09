import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// One `AsyncStream` per client, `.bufferingNewest(buffer)`, fed in a loop: `yield` never waits,
/// so a slow client only loses its own oldest frames (counted in `dropped`, from what `yield`
/// returns).
final class StreamPerClientEngine: FanOutEngine {
    private let buffer: Int
    private let clients = NIOLockedValueBox(ClientList<AsyncStream<ByteBuffer>.Continuation>())
    private let counters = EngineCounters()

    init(buffer: Int) { self.buffer = buffer }

    func publish(_ event: FeedEvent) {
        counters.published.add(1, ordering: .relaxed)
        let frame = event.frame
        var lost = 0
        for (_, continuation) in clients.withLockedValue({ $0.entries }) {
            if case .dropped = continuation.yield(frame) { lost += 1 }
        }
        if lost > 0 { counters.dropped.add(lost, ordering: .relaxed) }
    }

    func eventsResponse(to request: Request) -> Response {
        let (clients, buffer) = (clients, buffer)
        return FrameStream.response(to: request, counters: counters) {
            let (frames, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(buffer))
            let id = clients.withLockedValue { $0.isFinished ? nil : $0.add(continuation) }
            if id == nil { continuation.finish() }
            return (frames, {
                if let id { clients.withLockedValue { $0.remove(id) } }
                continuation.finish()
            })
        }
    }

    var stats: EngineStats { counters.stats }

    func finish() {
        for continuation in clients.withLockedValue({ $0.finishAll() }) { continuation.finish() }
    }
}
