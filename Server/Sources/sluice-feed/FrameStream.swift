import HTTPTypes
import Hummingbird
import NIOCore

/// The `GET /events` response of the engines other than Sluice's: the SSE stream of one client
/// whose frames come from an async sequence of its own (a channel, a stream, or its iterator of a
/// shared sequence), without resume or heartbeats.
///
/// Batching, as Sluice's stream does it: after each frame it waits for, the stream takes what its
/// ``FrameBacklog`` says is queued for the client, up to ``window`` frames in all, and writes
/// them as one write (one flush). The stream starts with `retry:` and, when the sequence ends
/// (the engine finished), writes `event: shutdown` before the response ends. When the client
/// closes its side, the loop is cancelled at once (Hummingbird's inbound-close handler), without
/// waiting for an event to fail to write. `join` is called when the body starts to be written and
/// returns the client's frames, its backlog and what to call when it leaves; `counters` counts
/// the client and each frame written.
enum FrameStream {
    static let headers: HTTPFields = [
        .contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no",
    ]
    static let retry = ByteBuffer(staticString: "retry: 3000\n\n")
    static let shutdown = ByteBuffer(staticString: "event: shutdown\ndata: the server is shutting down\n\n")
    /// The most frames written together (Sluice's stream's default window).
    static let window = 16

    static func response<Frames: AsyncSequence & Sendable>(
        to request: Request, counters: EngineCounters,
        join: @escaping @Sendable () -> (frames: Frames, backlog: any FrameBacklog, leave: @Sendable () -> Void)
    ) -> Response where Frames.Element == Frame, Frames.Failure == Never {
        Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (frames, backlog, leave) = join()
            counters.clients.add(1, ordering: .relaxed)
            defer {
                leave()
                counters.clients.subtract(1, ordering: .relaxed)
            }
            try await writer.write(retry)
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                var iterator = frames.makeAsyncIterator()
                var batch = ByteBuffer()
                while let first = await iterator.next(isolation: #isolation) {
                    backlog.took(first.id)
                    var more = min(backlog.queued, window - 1)
                    guard more > 0 else {
                        try await writer.write(first.bytes)
                        counters.delivered.add(1, ordering: .relaxed)
                        continue
                    }
                    batch.clear()
                    batch.writeImmutableBuffer(first.bytes)
                    var taken = 1
                    while more > 0, let frame = await iterator.next(isolation: #isolation) {
                        backlog.took(frame.id)
                        batch.writeImmutableBuffer(frame.bytes)
                        taken += 1
                        more -= 1
                    }
                    try await writer.write(batch)
                    counters.delivered.add(taken, ordering: .relaxed)
                }
            }
            try await writer.write(shutdown)
            try await writer.finish(nil)
        })
    }
}
