#if Server
import Foundation
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
    private let transform: @Sendable (String) -> Output
    private let feeds = NIOLockedValueBox([String: Entry]())

    private struct Entry {
        let feed: EventFeed<Output>
        var used: ContinuousClock.Instant
    }

    /// Feeds of `listener`'s log, each payload turned into the feed's value by `transform` once per
    /// event (for SSE, `{ ServerSentEvent(data: $0) }`: encoded once for every client).
    public init(listener: PostgresEventLogListener, options: EventFeed<Output>.Options = .init(),
                releaseAfter: Duration = .seconds(30), transform: @escaping @Sendable (String) -> Output) {
        self.listener = listener
        self.options = options
        self.releaseAfter = releaseAfter
        self.transform = transform
    }

    /// `topic`'s feed: the one in use, or a new one starting after the topic's latest event (the
    /// topic is made in the log if it does not exist). Throws when the log cannot be read.
    public func feed(of topic: String) async throws -> EventFeed<Output> {
        if let feed = touch(topic) { return feed }
        let start = try await listener.log.head(of: topic)
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
        }, options: options.named(topic))
        let (feed, extra) = feeds.withLockedValue { feeds -> (EventFeed<Output>, EventFeed<Output>?) in
            if var entry = feeds[topic], !entry.feed.isFinished {
                entry.used = .now
                feeds[topic] = entry
                return (entry.feed, made)
            }
            feeds[topic] = Entry(feed: made, used: .now)
            return (made, nil)
        }
        extra?.finish(reason: "another feed of the topic was made at the same time")
        return feed
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
        for (_, feed) in idle { feed.finish(reason: "the topic's feed was released") }
        return idle.map(\.0)
    }

    /// Releases idle feeds every half ``releaseAfter`` until graceful shutdown, then finishes every feed.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: self.releaseAfter / 2)
                self.releaseIdle()
            }
        }
        let all = feeds.withLockedValue { feeds -> [EventFeed<Output>] in
            defer { feeds = [:] }
            return feeds.values.map(\.feed)
        }
        all.forEach { $0.finish() }
    }
}

extension PostgresTopicFeeds where Output == String {
    /// Feeds of `listener`'s log whose values are the payloads.
    public convenience init(listener: PostgresEventLogListener, options: EventFeed<String>.Options = .init(),
                            releaseAfter: Duration = .seconds(30)) {
        self.init(listener: listener, options: options, releaseAfter: releaseAfter) { $0 }
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
