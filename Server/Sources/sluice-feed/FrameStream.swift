import HTTPTypes
import Hummingbird
import NIOCore

/// The `GET /events` response of the engines other than Sluice's: the SSE stream of one client
/// whose frames come from an async sequence of its own (a channel, a stream, or its iterator of a
/// shared sequence), written one at a time, without resume or heartbeats.
///
/// The stream starts with `retry:`, writes each frame as it comes, and, when the sequence ends (the
/// engine finished), `event: shutdown` before the response ends. When the client closes its side,
/// the loop is cancelled at once (Hummingbird's inbound-close handler), without waiting for an
/// event to fail to write. `join` is called when the body starts to be written and returns the
/// client's frames and what to call when it leaves; `counters` counts the client and each frame
/// written.
enum FrameStream {
    static let headers: HTTPFields = [
        .contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no",
    ]
    static let retry = ByteBuffer(staticString: "retry: 3000\n\n")
    static let shutdown = ByteBuffer(staticString: "event: shutdown\ndata: the server is shutting down\n\n")

    static func response<Frames: AsyncSequence & Sendable>(
        to request: Request, counters: EngineCounters,
        join: @escaping @Sendable () -> (frames: Frames, leave: @Sendable () -> Void)
    ) -> Response where Frames.Element == ByteBuffer, Frames.Failure == Never {
        Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (frames, leave) = join()
            counters.clients.add(1, ordering: .relaxed)
            defer {
                leave()
                counters.clients.subtract(1, ordering: .relaxed)
            }
            try await writer.write(retry)
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                for await frame in frames {
                    try await writer.write(frame)
                    counters.delivered.add(1, ordering: .relaxed)
                }
            }
            try await writer.write(shutdown)
            try await writer.finish(nil)
        })
    }
}
