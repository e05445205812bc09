import AsyncAlgorithms
import Hummingbird
import NIOCore

/// async-algorithms' `share()`: one `AsyncStream` of frames, shared by every client through one
/// buffer under one policy — `.bounded(1)`: the slowest client sets everyone's pace;
/// `.bufferingLatest(n)`: what the slowest client misses, every client misses.
///
/// The buffer drops nothing it can count from outside, so `dropped` stays 0. A client's backlog
/// (``SharedBacklog``) is what was published after the frame it last took, at most the buffer's
/// size under `.bufferingLatest`.
final class ShareEngine<Shared: AsyncSequence & Sendable>: FanOutEngine
where Shared.Element == Frame, Shared.Failure == Never {
    private let source: AsyncStream<Frame>.Continuation
    private let shared: Shared
    /// How many frames a client can have queued at most (`.max` when the buffer is bounded).
    private let limit: Int
    private let published = PublishedID()
    private let counters = EngineCounters()

    fileprivate init(source: AsyncStream<Frame>.Continuation, shared: Shared, limit: Int) {
        self.source = source
        self.shared = shared
        self.limit = limit
    }

    func publish(_ event: NumberedEvent) {
        counters.published.add(1, ordering: .relaxed)
        source.yield(event.frame)
        published.value.store(event.id, ordering: .releasing)
    }

    func eventsResponse(to request: Request) -> Response {
        let (shared, published, limit) = (shared, published, limit)
        return FrameStream.response(to: request, counters: counters) {
            (shared, SharedBacklog(published: published, limit: limit), {})
        }
    }

    var stats: EngineStats { counters.stats }

    func finish() { source.finish() }
}

/// An engine sharing one unbounded `AsyncStream` of frames with `share(bufferingPolicy: policy)`;
/// `latest`: the `n` of a `.bufferingLatest(n)` policy (the most a client can have queued).
func makeShareEngine(policy: AsyncBufferSequencePolicy, latest: Int? = nil) -> any FanOutEngine {
    let (frames, source) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .unbounded)
    return ShareEngine(source: source, shared: frames.share(bufferingPolicy: policy), limit: latest ?? .max)
}
