#if Server
/// What one client of an ``EventFeed`` receives, in order.
public enum FeedMessage<Output> {
    /// An event of the feed with its id: assigned once per event (by the feed, or by the log it
    /// reads), so every client sees the same `id` for the same event; a client resuming after
    /// `id` gets the events after it.
    case event(id: EventID, Output)
    /// This client lost `count` events, here, by its ``SlowClientPolicy`` (it fell behind).
    case dropped(count: Int)
    /// Events this client should have had are gone: it asked to resume after an event older than
    /// the feed (or its history) keeps, from another epoch, or with an id that is not one; or the
    /// feed's log itself broke (events trimmed before they were read, a new epoch). `missed`
    /// events, when known, are gone; the client must refetch its state. What follows is new.
    case reset(missed: UInt64?)
    /// The feed is shutting down (``EventFeed/finish(reason:)``, graceful shutdown, or the upstream
    /// completed): the last message; the stream finishes after it. `reason` says which.
    case shutdown(reason: String)
}

extension FeedMessage: Sendable where Output: Sendable {}
extension FeedMessage: Equatable where Output: Equatable {}
#endif
