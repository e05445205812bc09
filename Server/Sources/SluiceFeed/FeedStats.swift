#if Server
import Logging
import Metrics
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

/// The counters behind ``FeedStats`` (atomics, updated by the clients' subscriptions without a
/// shared lock), the feed's swift-metrics (names in Server/README.md, "Metrics"), and its logger.
package final class FeedCounters: Sendable {
    let connected = Atomic<Int>(0)
    let published = Atomic<UInt64>(0)
    let delivered = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    let disconnected = Atomic<Int>(0)
    /// Clients admitted and not yet gone (those reading the history before they join count too).
    let admitted = Atomic<Int>(0)
    /// The feed's logger, with its name as `feed` metadata.
    let logger: Logger

    private let clients: Meter
    private let publishedMetric: Counter
    private let deliveredMetric: Counter
    private let droppedMetric: Counter
    private let disconnectedMetric: Counter
    private let resumesMetric: Counter
    private let resetsMetric: Counter
    private let refusedMetric: Counter
    private let lagMetric: Recorder

    init(name: String, logger: Logger, metrics: any MetricsFactory) {
        var logger = logger
        logger[metadataKey: "feed"] = "\(name)"
        self.logger = logger
        let dimensions = [("feed", name)]
        clients = Meter(label: "sluice_feed_clients", dimensions: dimensions, factory: metrics)
        publishedMetric = Counter(label: "sluice_feed_events_published_total", dimensions: dimensions, factory: metrics)
        deliveredMetric = Counter(label: "sluice_feed_events_delivered_total", dimensions: dimensions, factory: metrics)
        droppedMetric = Counter(label: "sluice_feed_events_dropped_total", dimensions: dimensions, factory: metrics)
        disconnectedMetric = Counter(label: "sluice_feed_clients_disconnected_total", dimensions: dimensions, factory: metrics)
        resumesMetric = Counter(label: "sluice_feed_resumes_total", dimensions: dimensions, factory: metrics)
        resetsMetric = Counter(label: "sluice_feed_resets_total", dimensions: dimensions, factory: metrics)
        refusedMetric = Counter(label: "sluice_feed_clients_refused_total", dimensions: dimensions, factory: metrics)
        lagMetric = Recorder(label: "sluice_feed_client_lag_events", dimensions: dimensions, aggregate: true, factory: metrics)
    }

    /// Removes the feed's metrics from the metrics system (a released feed of its own name).
    func destroyMetrics() {
        clients.destroy()
        for counter in [publishedMetric, deliveredMetric, droppedMetric, disconnectedMetric, resumesMetric, resetsMetric, refusedMetric] {
            counter.destroy()
        }
        lagMetric.destroy()
    }

    var snapshot: FeedStats {
        FeedStats(connectedClients: connected.load(ordering: .relaxed),
                  eventsPublished: published.load(ordering: .relaxed),
                  eventsDelivered: delivered.load(ordering: .relaxed),
                  eventsDropped: dropped.load(ordering: .relaxed),
                  clientsDisconnected: disconnected.load(ordering: .relaxed))
    }

    /// Counts one more client unless `limit` are admitted already.
    func admit(limit: Int) -> Bool {
        var current = admitted.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = admitted.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        refusedMetric.increment()
        logger.notice("feed client refused: the feed has as many clients as it may serve", metadata: ["limit": "\(limit)"])
        return false
    }

    /// An admitted client is gone.
    func release() {
        admitted.subtract(1, ordering: .relaxed)
    }

    func isFull(limit: Int) -> Bool {
        admitted.load(ordering: .relaxed) >= limit
    }

    func clientJoined() {
        connected.add(1, ordering: .relaxed)
        clients.increment()
    }

    func clientLeft() {
        connected.subtract(1, ordering: .relaxed)
        clients.decrement()
    }

    func eventPublished() {
        published.add(1, ordering: .relaxed)
        publishedMetric.increment()
    }

    func eventDelivered() {
        delivered.add(1, ordering: .relaxed)
        deliveredMetric.increment()
    }

    func eventsDelivered(_ count: Int) {
        delivered.add(count, ordering: .relaxed)
        deliveredMetric.increment(by: count)
    }

    func eventsDropped(_ count: Int) {
        dropped.add(count, ordering: .relaxed)
        droppedMetric.increment(by: Int64(count))
    }

    /// A client's `dropped` notice is delivered: it lost `count` events here.
    func dropNoticed(_ count: Int) {
        logger.debug("feed client dropped events by its policy", metadata: ["dropped": "\(count)"])
    }

    func fellBehind(buffered: Int) {
        disconnected.add(1, ordering: .relaxed)
        disconnectedMetric.increment()
        logger.notice("feed client fell behind and is disconnected", metadata: ["buffered": "\(buffered)"])
    }

    func resumed(from start: ResumePoint) {
        resumesMetric.increment()
        logger.debug("feed client resumes", metadata: ["from": "\(start)"])
    }

    func reset(missed: UInt64?) {
        resetsMetric.increment()
        logger.debug("feed client reset: what it asked for is gone", metadata: ["missed": "\(missed.map(String.init) ?? "unknown")"])
    }

    /// Events waiting in a client's buffer as its writer asks for more.
    func lag(_ buffered: Int) {
        lagMetric.record(buffered)
    }

    /// A client's stream ended (`error`: why it was cut short; `nil`: it finished).
    func streamEnded(_ error: (any Error)?) {
        switch error {
        case nil:
            logger.debug("feed client finished")
        case FeedStreamStop.peerClosed?, FeedStreamStop.cancelled?:
            logger.debug("feed client left")
        case FeedStreamStop.fellBehind?, FeedStreamStop.tooManyClients?:
            break   // logged when it happened
        case FeedStreamStop.shutdownTimedOut?:
            logger.notice("feed client did not take its last events within the shutdown grace period: disconnected")
        case FeedStreamStop.historyUnavailable?:
            logger.warning("feed client's history could not be read: disconnected")
        case let error?:
            logger.debug("feed client's connection failed", metadata: ["error": "\(error)"])
        }
    }
}
#endif
