#if Server
/// Why a client's stream of a feed stopped before its last message: what a transport's serving
/// task throws (``ServerSentEventClient/run(write:)``, ``FeedSocketClient/run(send:)``) when
/// it is to drop the connection at once.
public enum FeedStreamStop: Error, Sendable, Hashable {
    /// The client fell behind under ``SlowClientPolicy/disconnect(buffer:)``.
    case fellBehind
    /// The client resumed from further back than memory, and the feed's history could not be read.
    case historyUnavailable
    /// The feed already served as many clients as it may (``EventFeed/Options/maximumClients``).
    case tooManyClients
    /// The peer closed its side of the connection.
    case peerClosed
    /// A shutdown began and the client did not take its last events within the grace period.
    case shutdownTimedOut
    /// The stream was ended from the transport's side (its task was cancelled).
    case cancelled
}
#endif
