#if Server
import NIOCore

/// One topic of a connection that follows several: its name, its feed, where the client starts in
/// it, and what the client may see of it.
///
/// A connection of several topics (``ServerSentEventTopics``, ``FeedSocketStream``'s sockets of
/// topics) is one client of each topic's feed — each with its replay, history and resume, and at
/// most ``FeedStreamOptions/window`` messages in flight — whose events wait in one buffer of the
/// connection under one ``SlowClientPolicy`` (``ConnectionBuffer``): its messages go out in one
/// stream, each naming its topic.
public struct FeedTopic<Output: Sendable>: Sendable {
    /// The topic's name, as the stream names its events.
    public let name: String
    /// The topic's feed.
    public let feed: EventFeed<Output>
    /// Where the client starts in the topic (fixed by ``EventFeed/fixing(_:)`` when the
    /// connection is made).
    public var start: ResumePoint
    /// The events of the topic the client may see (`nil`: all); the others are skipped for it.
    public var filter: (@Sendable (Output) -> Bool)?

    /// The topic `name` of `feed`, from `start`, its events filtered by `filter`.
    public init(_ name: String, feed: EventFeed<Output>, from start: ResumePoint = .live, filter: (@Sendable (Output) -> Bool)? = nil) {
        self.name = name
        self.feed = feed
        self.start = start
        self.filter = filter
    }

    /// Where the client stands in the topic before its first message: the id it resumes after,
    /// else the feed's latest event.
    var position: EventID {
        switch start {
        case .after(let id), .liveSince(let id): id
        case .live, .unreadable: feed.lastEventID
        }
    }
}

/// The names no topic of a stream of several may have: its stream's own messages are named so
/// (`event: reset`, `dropped`, `shutdown`).
package let reservedTopicNames: Set<String> = ["reset", "dropped", "shutdown"]

extension ClientOutlet {
    /// A stream of several topics: one outlet, a client of each topic's feed, their messages
    /// tagged with the topic's index in `topics`, their events held in one buffer of the
    /// connection (``ConnectionBuffer``) under one policy.
    package static func connect<Output>(_ topics: [FeedTopic<Output>], options: FeedStreamOptions, heartbeat: Duration?,
                                        on eventLoop: (any EventLoop)? = nil) -> ClientOutlet {
        precondition(!topics.isEmpty, "a stream of topics follows at least one")
        let first = topics[0].feed
        let outlet = ClientOutlet(window: options.window, heartbeat: heartbeat.map(TimeAmount.init),
                                  shutdownGrace: TimeAmount(options.shutdownGrace),
                                  eventLoop: eventLoop ?? options.eventLoopGroup.any(), counters: first.counters, topicSet: true)
        for (index, topic) in topics.enumerated() {
            outlet.join(topic.feed, topic: Int32(index), from: topic.start, policy: options.policy)
        }
        return outlet
    }
}
#endif
