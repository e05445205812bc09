import AsyncAlgorithms
import Hummingbird
import NIOCore

/// async-algorithms' `share()`: one `AsyncStream` of frames, shared by every client through one
/// buffer under one policy — `.bounded(1)`: the slowest client sets everyone's pace;
/// `.bufferingLatest(n)`: what the slowest client misses, every client misses.
///
/// The buffer drops nothing it can count from outside, so `dropped` stays 0.
final class ShareEngine<Shared: AsyncSequence & Sendable>: FanOutEngine
where Shared.Element == ByteBuffer, Shared.Failure == Never {
    private let source: AsyncStream<ByteBuffer>.Continuation
    private let shared: Shared
    private let counters = EngineCounters()

    fileprivate init(source: AsyncStream<ByteBuffer>.Continuation, shared: Shared) {
        self.source = source
        self.shared = shared
    }

    func publish(_ event: FeedEvent) {
        counters.published.add(1, ordering: .relaxed)
        source.yield(event.frame)
    }

    func eventsResponse(to request: Request) -> Response {
        let shared = shared
        return FrameStream.response(to: request, counters: counters) { (shared, {}) }
    }

    var stats: EngineStats { counters.stats }

    func finish() { source.finish() }
}

/// An engine sharing one unbounded `AsyncStream` of frames with `share(bufferingPolicy: policy)`.
func makeShareEngine(policy: AsyncBufferSequencePolicy) -> any FanOutEngine {
    let (frames, source) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .unbounded)
    return ShareEngine(source: source, shared: frames.share(bufferingPolicy: policy))
}
