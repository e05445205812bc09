#if Server
/// What a feed does for a client that falls behind: one whose socket does not take events as fast
/// as the feed produces them.
///
/// Each client has a buffer of `buffer` events between the feed and its socket. Events wait there
/// while the client's previous writes are still in progress; when the buffer is full, the policy
/// decides. Every event dropped and every client disconnected is counted in ``FeedStats``.
public enum SlowClientPolicy: Sendable, Hashable {
    /// When the buffer is full, the oldest buffered event goes to make room for the new one. The
    /// client is told how many it lost with one ``FeedMessage/dropped(count:)`` before the events
    /// that follow the gap (as SSE: `event: dropped`).
    case dropOldest(buffer: Int)
    /// When the buffer is full, the new event is not buffered. The client is told how many it lost
    /// with one ``FeedMessage/dropped(count:)`` after the buffered events, at the gap.
    case dropNewest(buffer: Int)
    /// When the buffer is full, the client is disconnected: its stream fails with
    /// ``FeedClientFailure/fellBehind(buffered:)`` at once (ahead of what is buffered), and the
    /// HTTP connection is closed without waiting for the stalled socket.
    case disconnect(buffer: Int)

    /// The number of events buffered for a client before the policy applies.
    public var bufferSize: Int {
        switch self {
        case .dropOldest(let size), .dropNewest(let size), .disconnect(let size): size
        }
    }
}

/// Why a feed client's stream failed.
public enum FeedClientFailure: Error, Hashable, Sendable {
    /// The client fell `buffered` events behind under ``SlowClientPolicy/disconnect(buffer:)``.
    case fellBehind(buffered: Int)
    /// The client resumed from further back than the feed holds in memory, and its history could
    /// not be read (the database was unreachable): what it asked for is not known to be lost, so
    /// it is not reset; it can try again with the same id. `reason` is the error.
    case historyUnavailable(reason: String)
    /// The feed already served ``EventFeed/Options/maximumClients`` clients (`limit`): this one was
    /// refused before it began; it may try again later.
    case tooManyClients(limit: Int)
}
#endif
