#if Server
import NIOCore

/// The `retry:` lines a stream's clients are given: the stream's reconnection delay spread over
/// `retry` … `retry × (1 + jitter)`, in 16 steps, one drawn at random for each client.
/// When an instance stops, a browser waits its `retry:` before it reconnects: spread so, the
/// clients of the instance come back to the others over a stretch of time rather than all at once.
///
/// A value of two numbers: a line is made when it is picked, so that a stream made for each request
/// (a topic's, say) costs nothing to make and keeps nothing while its client is connected.
package struct RetryLines: Sendable {
    /// The delay in milliseconds (`nil`: no line).
    private let base: Int64?
    private let jitter: Double

    /// The lines of `retry` (`nil`: none) spread by `jitter` (0: every client gets `retry`).
    package init(retry: Duration?, jitter: Double) {
        base = retry?.milliseconds
        self.jitter = jitter
    }

    /// One client's line, if the stream has one.
    package func pick() -> ByteBuffer? {
        guard let base else { return nil }
        return ByteBuffer(string: "retry: \(delay(of: base, step: Int.random(in: 0..<steps)))\n\n")
    }

    private var steps: Int { jitter > 0 ? 16 : 1 }

    private func delay(of base: Int64, step: Int) -> Int64 {
        let spread = steps > 1 ? jitter * Double(step) / Double(steps - 1) : 0
        return base + Int64((Double(base) * spread).rounded())
    }
}
#endif
