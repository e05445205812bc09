#if Server
import Synchronization

/// A feed's counters at one moment (``EventFeed/stats``, ``EventFeed/statsPublisher``).
public struct FeedStats: Hashable, Sendable, CustomStringConvertible {
    /// Clients whose streams are open now.
    public var connectedClients: Int
    /// Events the feed has numbered so far (its last event's id).
    public var eventsPublished: UInt64
    /// Events handed to clients (one per client per event; replayed events included).
    public var eventsDelivered: Int
    /// Events not delivered to some client because it fell behind (one per client per event),
    /// under ``SlowClientPolicy/dropOldest(buffer:)`` or ``SlowClientPolicy/dropNewest(buffer:)``.
    public var eventsDropped: Int
    /// Clients disconnected by ``SlowClientPolicy/disconnect(buffer:)``.
    public var clientsDisconnected: Int

    /// Counters with the given values.
    public init(connectedClients: Int = 0, eventsPublished: UInt64 = 0, eventsDelivered: Int = 0,
                eventsDropped: Int = 0, clientsDisconnected: Int = 0) {
        self.connectedClients = connectedClients
        self.eventsPublished = eventsPublished
        self.eventsDelivered = eventsDelivered
        self.eventsDropped = eventsDropped
        self.clientsDisconnected = clientsDisconnected
    }

    /// The counters on one line.
    public var description: String {
        "FeedStats(connected: \(connectedClients), published: \(eventsPublished), delivered: \(eventsDelivered), "
            + "dropped: \(eventsDropped), disconnected: \(clientsDisconnected))"
    }
}

/// The counters behind ``FeedStats``: atomics, updated by the clients' subscriptions without a
/// shared lock.
final class FeedCounters: Sendable {
    let connected = Atomic<Int>(0)
    let published = Atomic<UInt64>(0)
    let delivered = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    let disconnected = Atomic<Int>(0)

    var snapshot: FeedStats {
        FeedStats(connectedClients: connected.load(ordering: .relaxed),
                  eventsPublished: published.load(ordering: .relaxed),
                  eventsDelivered: delivered.load(ordering: .relaxed),
                  eventsDropped: dropped.load(ordering: .relaxed),
                  clientsDisconnected: disconnected.load(ordering: .relaxed))
    }
}
#endif
