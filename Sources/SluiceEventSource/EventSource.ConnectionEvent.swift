import Foundation

extension EventSource {
    /// What the connections of one subscription (one iterator of ``EventSource/events``) do, as
    /// the handler given to ``EventSource/init(request:configuration:session:onConnectionEvent:)``
    /// (or an ``EventSocket``'s) is told: each attempt, each failure with the wait before the
    /// next attempt, each resume.
    ///
    /// ```swift
    /// let feed = EventSource(url: url, configuration: .init(maximumAttempts: 5)) { connection in
    ///     log(connection)   // "Attempt 1 failed: The connection to 127.0.0.1:9 was refused: …"
    /// }
    /// ```
    ///
    /// Each value reads as a sentence (its `description`).
    public enum ConnectionEvent: Sendable, Hashable, CustomStringConvertible {
        /// Attempt `attempt` to open the stream starts: 1 for the first of all and the first after
        /// a stream that sent something, counting up while attempts fail. It resumes after
        /// `lastEventID` (sent as `Last-Event-ID`, or an ``EventSocket``'s `lastEventId`); empty:
        /// from the start.
        case connecting(attempt: Int, lastEventID: String)
        /// The server answered with the stream: it is open.
        case connected
        /// Attempt `attempt` failed with `error`. The next attempt starts after `retryIn`; `nil`:
        /// there is none, and the stream fails (with `error`, or with
        /// ``EventSourceError/gaveUp(attempts:lastFailure:)`` if it was retried and the attempts
        /// ran out).
        case attemptFailed(attempt: Int, error: EventSourceError, retryIn: Duration?)
        /// The open stream ended: the server closed it (`error` is `nil`) or it was lost. The next
        /// attempt starts after `reconnectIn` (the reconnection time); `nil`: the stream fails with
        /// `error`.
        case disconnected(error: EventSourceError?, reconnectIn: Duration?)

        /// What happened, as a sentence.
        public var description: String {
            switch self {
            case .connecting(let attempt, let lastEventID):
                let resume = lastEventID.isEmpty ? "from the start" : "resuming after event \(lastEventID)"
                return "Connecting (attempt \(attempt)), \(resume)."
            case .connected:
                return "Connected: the stream is open."
            case .attemptFailed(let attempt, let error, let retryIn):
                let next = retryIn.map { "Retrying in \(Self.format($0))." } ?? "No more attempts."
                return "Attempt \(attempt) failed: \(error) \(next)"
            case .disconnected(let error, let reconnectIn):
                let what = error.map { "The stream ended: \($0)" } ?? "The server closed the stream."
                let next = reconnectIn.map { " Reconnecting in \(Self.format($0))." } ?? ""
                return what + next
            }
        }

        /// A duration in seconds, to the tenth ("4.2 s"), or milliseconds below a tenth.
        private static func format(_ duration: Duration) -> String {
            let seconds = duration.seconds
            if seconds < 0.1 { return "\(Int((seconds * 1000).rounded())) ms" }
            let tenths = Int((seconds * 10).rounded())
            return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
        }
    }
}
