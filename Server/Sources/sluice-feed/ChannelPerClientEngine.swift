import AsyncAlgorithms
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// One `AsyncChannel` per client, the broadcast awaiting each client's `send` in turn: a client
/// that does not read holds every other client's next event up. A channel holds nothing: each
/// frame is handed over as it is sent, so nothing is queued to write with it (``NoBacklog``).
///
/// ``publish(_:)`` must not wait, so events go into one unbounded queue that a broadcasting task
/// drains, one event to all clients before the next.
final class ChannelPerClientEngine: FanOutEngine {
    private let queue: AsyncStream<Frame>.Continuation
    private let clients: NIOLockedValueBox<ClientList<AsyncChannel<Frame>>>
    private let counters = EngineCounters()

    init() {
        let (frames, queue) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .unbounded)
        let clients = NIOLockedValueBox(ClientList<AsyncChannel<Frame>>())
        self.queue = queue
        self.clients = clients
        Task {
            for await frame in frames {
                for (_, channel) in clients.withLockedValue({ $0.entries }) {
                    await channel.send(frame)
                }
            }
            for channel in clients.withLockedValue({ $0.finishAll() }) { channel.finish() }
        }
    }

    func publish(_ event: NumberedEvent) {
        counters.published.add(1, ordering: .relaxed)
        queue.yield(event.frame)
    }

    func eventsResponse(to request: Request) -> Response {
        let clients = clients
        return FrameStream.response(to: request, counters: counters) {
            let channel = AsyncChannel<Frame>()
            let id = clients.withLockedValue { $0.isFinished ? nil : $0.add(channel) }
            if id == nil { channel.finish() }
            return (channel, NoBacklog(), {
                if let id { clients.withLockedValue { $0.remove(id) } }
                channel.finish()   // a send waiting for this client returns
            })
        }
    }

    var stats: EngineStats { counters.stats }

    /// Ends the queue: the broadcast delivers what is queued, then finishes every channel.
    func finish() { queue.finish() }
}
