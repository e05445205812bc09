#if Server
import Foundation
import Metrics
import NIOConcurrencyHelpers
import ServiceLifecycle
import Sluice
import SluiceFeed

/// An ``/SluiceFeed/EventFeed`` per topic of a ``PostgresEventLog``, made on a topic's first use and released
/// when it has had no client for ``releaseAfter``: the feeds of an instance of a fleet.
///
/// ```swift
/// let feeds = PostgresTopicFeeds(listener: listener) { ServerSentEvent(data: $0) }
/// router.get("events/:topic") { request, context in
///     let feed = try await feeds.feed(of: context.parameters.require("topic"))
///     return ServerSentEvents(feed: feed).response(to: request)
/// }
/// ```
///
/// Each feed's event ids are the log's: the same event has the same id on every instance, and a
/// client resumes on any of them — from the feed's memory when recent, from the log's table when
/// older, with ``/SluiceFeed/FeedMessage/reset(missed:)`` when retention removed what it missed or its id is of
/// another epoch. A `Service` (run it in the app's `ServiceGroup`, beside the listener): it
/// releases idle feeds, and finishes every feed on graceful shutdown.
public final class PostgresTopicFeeds<Output: Sendable>: Service, @unchecked Sendable {
    /// The listener the feeds read from.
    public let listener: PostgresEventLogListener
    /// Each feed's settings.
    public let options: EventFeed<Output>.Options
    /// How long a feed without clients is kept (30 s).
    public let releaseAfter: Duration
    /// The most feeds (topics in use) at once (10,000): a topic beyond it is refused with
    /// ``PostgresEventLogError/Kind/limitReached`` (logged at `notice`, counted by
    /// `sluice_topic_feeds_refused_total`) until idle feeds are released.
    public let maximumFeeds: Int
    /// Whether each topic's feed has metrics of its own, the topic as their `feed` dimension
    /// (removed when the feed is released), rather than all topics' feeds counting under
    /// ``/SluiceFeed/EventFeed/Options/name`` (`false`, the default: topic names come from clients, and
    /// a dimension per name would grow without bound). Log lines carry the topic either way.
    public let metricsByTopic: Bool
    /// How long the feeds stay open while the listener cannot reach the database (30 s). Past it
    /// every feed is finished — its clients get ``/SluiceFeed/FeedMessage/shutdown(reason:)`` and their
    /// streams end, so that they resume with `Last-Event-ID` on an instance that can serve them,
    /// rather than wait on heartbeats for events this one cannot read — and ``feed(of:)`` throws
    /// ``PostgresEventLogError/Kind/unavailable`` until the listener listens again. `nil`: the feeds
    /// stay open however long it takes.
    public let partitionLimit: Duration?
    private let refusedMetric: Counter
    private let transform: @Sendable (String) -> Output
    private let feeds = NIOLockedValueBox([String: Entry]())

    private struct Entry {
        let feed: EventFeed<Output>
        var used: ContinuousClock.Instant
    }

    /// Feeds of `listener`'s log, each payload turned into the feed's value by `transform` once per
    /// event (for SSE, `{ ServerSentEvent(data: $0) }`: encoded once for every client).
    public init(listener: PostgresEventLogListener, options: EventFeed<Output>.Options = .init(),
                releaseAfter: Duration = .seconds(30), maximumFeeds: Int = 10_000, metricsByTopic: Bool = false,
                partitionLimit: Duration? = .seconds(30), transform: @escaping @Sendable (String) -> Output) {
        precondition(maximumFeeds > 0, "maximumFeeds must be positive")
        self.partitionLimit = partitionLimit
        self.listener = listener
        self.options = options
        self.releaseAfter = releaseAfter
        self.maximumFeeds = maximumFeeds
        self.metricsByTopic = metricsByTopic
        self.transform = transform
        refusedMetric = Counter(label: "sluice_topic_feeds_refused_total", factory: options.metrics)
    }

    /// `topic`'s feed: the one in use, or a new one starting after the topic's latest event (a
    /// topic never appended to is not made: its feed starts at ``/SluiceFeed/EventID/origin``). Throws
    /// a ``PostgresEventLogError``: ``PostgresEventLogError/Kind/invalid`` for a name outside
    /// ``PostgresEventLog/isValidTopic(_:)``, ``PostgresEventLogError/Kind/limitReached`` when
    /// ``maximumFeeds`` feeds are in use, ``PostgresEventLogError/Kind/unavailable`` when the log
    /// cannot be read or the listener has been cut off from it for ``partitionLimit``.
    public func feed(of topic: String) async throws -> EventFeed<Output> {
        if let reason = cutOff() { throw PostgresEventLogError(.unavailable, reason) }
        if let feed = touch(topic) { return feed }
        try listener.log.check(topic: topic)
        try checkRoom(for: topic)
        let start: EventID
        do { start = try await listener.log.head(of: topic) } catch {
            throw PostgresEventLogError.classify(error, broken: .unavailable)
        }
        let transform = transform
        let history = listener.log.history(of: topic)
        let entries = listener.entries(of: topic, after: start).map { entry -> LogEntry<Output> in
            switch entry {
            case .event(let id, let payload): .event(id, transform(payload))
            case .reset(let epoch, let after, let missed): .reset(epoch: epoch, after: after, missed: missed)
            }
        }
        // Made outside the lock (it subscribes to the listener); if another request made the
        // topic's feed meanwhile, that one is kept and this one finished.
        let made = EventFeed(log: entries, after: start, history: FeedHistory { after, limit in
            try await history.entries(after: after, limit: limit).map { entry in
                switch entry {
                case .event(let id, let payload): .event(id, transform(payload))
                case .reset(let epoch, let after, let missed): .reset(epoch: epoch, after: after, missed: missed)
                }
            }
        }, options: options(of: topic))
        let (feed, extra) = feeds.withLockedValue { feeds -> (EventFeed<Output>?, EventFeed<Output>?) in
            if var entry = feeds[topic], !entry.feed.isFinished {
                entry.used = .now
                feeds[topic] = entry
                return (entry.feed, made)
            }
            guard feeds.count < maximumFeeds || feeds[topic] != nil else { return (nil, made) }
            feeds[topic] = Entry(feed: made, used: .now)
            return (made, nil)
        }
        extra?.finish(reason: "another feed of the topic was made at the same time")
        guard let feed else {
            try checkRoom(for: topic)   // filled while this one was made: refused
            throw PostgresEventLogError(.limitReached, "\(maximumFeeds) topics' feeds are in use")
        }
        return feed
    }

    /// Throws ``PostgresEventLogError/Kind/limitReached`` when no other feed may be made.
    private func checkRoom(for topic: String) throws {
        let full = feeds.withLockedValue { $0.count >= maximumFeeds && $0[topic] == nil }
        guard full else { return }
        refusedMetric.increment()
        options.logger.notice("topic feed refused: the most feeds are in use",
                              metadata: ["topic": "\(topic)", "maximumFeeds": "\(maximumFeeds)"])
        throw PostgresEventLogError(.limitReached, "\(maximumFeeds) topics' feeds are in use")
    }

    /// A topic's feed's options: named after the topic when it has metrics of its own; its log
    /// lines say the topic either way.
    private func options(of topic: String) -> EventFeed<Output>.Options {
        var options = metricsByTopic ? options.named(topic) : options
        options.logger[metadataKey: "topic"] = "\(topic)"
        return options
    }

    /// The topics that have a feed now.
    public var topics: [String] { feeds.withLockedValue { Array($0.keys) } }

    private func touch(_ topic: String) -> EventFeed<Output>? {
        feeds.withLockedValue { feeds in
            guard var entry = feeds[topic], !entry.feed.isFinished else { return nil }
            entry.used = .now
            feeds[topic] = entry
            return entry.feed
        }
    }

    /// Releases the feeds that have had no client for ``releaseAfter`` (finishing them ends their
    /// topic's `LISTEN` when no other reader needs it); returns their topics.
    @discardableResult
    public func releaseIdle(now: ContinuousClock.Instant = .now) -> [String] {
        let idle = feeds.withLockedValue { feeds -> [(String, EventFeed<Output>)] in
            let idle = feeds.filter { _, entry in
                entry.feed.isFinished || (entry.feed.stats.connectedClients == 0 && now - entry.used >= releaseAfter)
            }
            for (topic, _) in idle { feeds[topic] = nil }
            return idle.map { ($0.key, $0.value.feed) }
        }
        for (_, feed) in idle {
            feed.finish(reason: "the topic's feed was released")
            if metricsByTopic { feed.removeMetrics() }
        }
        return idle.map(\.0)
    }

    /// Why the feeds cannot be served, when the listener has been unable to reach the database for
    /// ``partitionLimit``; `nil` otherwise.
    func cutOff(now: Date = Date()) -> String? {
        guard let partitionLimit, case .reconnecting(let since, _, let lastError) = listener.state else { return nil }
        let seconds = Double(partitionLimit.components.seconds) + Double(partitionLimit.components.attoseconds) / 1e18
        guard now.timeIntervalSince(since) >= seconds else { return nil }
        return "the event log has been unreachable for over \(partitionLimit) (\(lastError))"
    }

    /// Finishes every feed with `reason`.
    private func finishAll(reason: String) {
        let all = feeds.withLockedValue { feeds -> [EventFeed<Output>] in
            defer { feeds = [:] }
            return feeds.values.map(\.feed)
        }
        for feed in all {
            feed.finish(reason: reason)
            if metricsByTopic { feed.removeMetrics() }
        }
    }

    /// Until graceful shutdown: releases idle feeds every half ``releaseAfter``, and finishes every
    /// feed once the listener has been cut off for ``partitionLimit`` (looked at every quarter of
    /// it). Then finishes every feed.
    public func run() async throws {
        let release = releaseAfter / 2
        let tick = partitionLimit.map { min($0 / 4, release) } ?? release
        await cancelWhenGracefulShutdown {
            var released = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                if ContinuousClock.now - released >= release {
                    self.releaseIdle()
                    released = .now
                }
                if let reason = self.cutOff(), !self.topics.isEmpty {
                    self.options.logger.warning("topic feeds finished: their clients resume elsewhere", metadata: ["reason": "\(reason)"])
                    self.finishAll(reason: reason)
                }
            }
        }
        finishAll(reason: "the server is shutting down")
    }
}

extension PostgresTopicFeeds where Output == String {
    /// Feeds of `listener`'s log whose values are the payloads.
    public convenience init(listener: PostgresEventLogListener, options: EventFeed<String>.Options = .init(),
                            releaseAfter: Duration = .seconds(30), maximumFeeds: Int = 10_000, metricsByTopic: Bool = false,
                            partitionLimit: Duration? = .seconds(30)) {
        self.init(listener: listener, options: options, releaseAfter: releaseAfter, maximumFeeds: maximumFeeds,
                  metricsByTopic: metricsByTopic, partitionLimit: partitionLimit) { $0 }
    }
}

/// Trims a ``PostgresEventLog`` by its retention every ``interval``: a `Service` for the app's
/// `ServiceGroup`. One instance of a fleet trimming is enough; several do no harm.
public struct PostgresEventLogTrimmer: Service {
    /// The log trimmed.
    public let log: PostgresEventLog
    /// What it keeps.
    public let retention: PostgresEventLogRetention
    /// How often it trims (1 minute).
    public let interval: Duration

    /// A trimmer of `log` by `retention`, every `interval`.
    public init(log: PostgresEventLog, retention: PostgresEventLogRetention, interval: Duration = .seconds(60)) {
        self.log = log
        self.retention = retention
        self.interval = interval
    }

    /// Trims at once, then every ``interval``, until graceful shutdown; a failed trim is tried
    /// again at the next.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await log.trim(retention) } catch {
                    log.logger.warning("event log: trim failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}

extension EventFeed.Options {
    /// These options with the name `name` (a topic's feed is named after its topic: its metrics'
    /// `feed` dimension and its log lines' `feed` metadata).
    func named(_ name: String) -> Self {
        var options = self
        options.name = name
        return options
    }
}
#endif
