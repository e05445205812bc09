#if Server
import NIOCore

/// The `retry:` lines a stream's clients are given: the stream's reconnection delay spread over
/// `retry` … `retry × (1 + jitter)`, in 16 steps made once, one drawn at random for each client.
/// When an instance stops, a browser waits its `retry:` before it reconnects: spread so, the
/// clients of the instance come back to the others over a stretch of time rather than all at once.
package struct RetryLines: Sendable {
    private let lines: [ByteBuffer]

    /// The lines of `retry` (`nil`: none) spread by `jitter` (0: every client gets `retry`).
    package init(retry: Duration?, jitter: Double) {
        guard let retry else {
            lines = []
            return
        }
        let base = retry.milliseconds
        let steps = jitter > 0 ? 16 : 1
        lines = (0..<steps).map { step in
            let spread = steps > 1 ? jitter * Double(step) / Double(steps - 1) : 0
            return ByteBuffer(string: "retry: \(base + Int64((Double(base) * spread).rounded()))\n\n")
        }
    }

    /// One client's line, if the stream has one.
    package func pick() -> ByteBuffer? {
        lines.randomElement()
    }
}
#endif
