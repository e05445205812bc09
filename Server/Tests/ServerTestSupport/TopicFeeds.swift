import Sluice
import SluiceFeed

/// Topics in memory for the tests, each a feed of its own subject.
public struct TopicFeeds: Sendable {
    /// A topic the tests did not make.
    public struct Unknown: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "no such topic" }
    }

    public let subjects: [String: PassthroughSubject<ServerSentEvent, Never>]
    public let feeds: [String: EventFeed<ServerSentEvent>]

    public init(_ names: [String]) {
        subjects = Dictionary(uniqueKeysWithValues: names.map { ($0, PassthroughSubject<ServerSentEvent, Never>()) })
        feeds = subjects.mapValues { EventFeed($0) }
    }

    /// The feed of `topic`; throws ``Unknown`` for any other name.
    public func feed(_ topic: String) throws -> EventFeed<ServerSentEvent> {
        guard let feed = feeds[topic] else { throw Unknown() }
        return feed
    }

    /// `topic` as a socket of topics follows it, from `start`.
    @Sendable public func topic(_ name: String, from start: ResumePoint) throws -> FeedTopic<ServerSentEvent> {
        let feed = try feed(name)
        return FeedTopic(name, feed: feed, from: feed.fixing(start))
    }

    /// Publishes an event of `text` to `topic`.
    public func send(_ topic: String, _ text: String) { subjects[topic]!.send(ServerSentEvent(data: text)) }
}
