/// What one client of an ``EventFeed`` receives, in order.
public enum FeedMessage<Output> {
    /// An event of the feed with its sequence number. Numbers are assigned once per event at the
    /// feed, from 1, so every client sees the same `id` for the same event; a client resuming
    /// after `id` gets the events numbered after it.
    case event(id: UInt64, Output)
    /// This client lost `count` events, here, by its ``SlowClientPolicy`` (it fell behind).
    case dropped(count: Int)
    /// The client asked to resume after an event older than the feed's replay window: `missed`
    /// events (when known) are gone; the client must refetch its state. Comes first, before the
    /// oldest event the feed still has.
    case reset(missed: UInt64?)
    /// The feed is shutting down (``EventFeed/finish()``, graceful shutdown, or the upstream
    /// completed): the last message; the stream finishes after it. `reason` says which.
    case shutdown(reason: String)
}

extension FeedMessage: Sendable where Output: Sendable {}
extension FeedMessage: Equatable where Output: Equatable {}
