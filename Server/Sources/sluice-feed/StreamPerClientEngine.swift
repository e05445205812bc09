import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// One `AsyncStream` per client, `.bufferingNewest(buffer)`, fed in a loop: `yield` never waits,
/// so a slow client only loses its own oldest frames (counted in `dropped`, from what `yield`
/// returns). What `yield` enqueued is counted in the client's ``CountedBacklog``, for
/// ``FrameStream``'s batching.
final class StreamPerClientEngine: FanOutEngine {
    private let buffer: Int
    private let clients = NIOLockedValueBox(ClientList<(continuation: AsyncStream<Frame>.Continuation, backlog: CountedBacklog)>())
    private let counters = EngineCounters()

    init(buffer: Int) { self.buffer = buffer }

    func publish(_ event: NumberedEvent) {
        counters.published.add(1, ordering: .relaxed)
        let frame = event.frame
        var lost = 0
        for (_, client) in clients.withLockedValue({ $0.entries }) {
            switch client.continuation.yield(frame) {
            case .enqueued: client.backlog.enqueued()
            case .dropped: lost += 1
            case .terminated: break
            @unknown default: break
            }
        }
        if lost > 0 { counters.dropped.add(lost, ordering: .relaxed) }
    }

    func eventsResponse(to request: Request) -> Response {
        let (clients, buffer) = (clients, buffer)
        return FrameStream.response(to: request, counters: counters) {
            let (frames, continuation) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .bufferingNewest(buffer))
            let backlog = CountedBacklog()
            let id = clients.withLockedValue { $0.isFinished ? nil : $0.add((continuation, backlog)) }
            if id == nil { continuation.finish() }
            return (frames, backlog, {
                if let id { clients.withLockedValue { $0.remove(id) } }
                continuation.finish()
            })
        }
    }

    var stats: EngineStats { counters.stats }

    func finish() {
        for client in clients.withLockedValue({ $0.finishAll() }) { client.continuation.finish() }
    }
}
