#if Hummingbird
import HTTPTypes
import Hummingbird
import SluiceFeed

/// A path whose Server-Sent Events a connection may be given from its event loop, without a task
/// of its own (`HTTPServerBuilder.eventStreams(_:configuration:)`).
///
/// Only a `GET` that is a connection's first request is served this way; the same path in the
/// application's router serves every other (a browser's connection reused after loading a page,
/// say), with the same answers.
public struct EventStreamRoute: Sendable {
    /// The topic a request path names (`""` for a single feed), or `nil` when it is not this route's.
    let topic: @Sendable (Substring) -> String?
    /// What a request for a topic gets.
    let answer: @Sendable (Request, String) async -> LoopStreamAnswer

    /// `GET <path>/{topic}`: `streams`' answer for the topic — as the router's
    /// `streams.response(to:topic:)` gives it.
    public static func topics<Output>(_ streams: TopicEventStreams<Output>, under path: String) -> EventStreamRoute {
        let prefix = Self.normalized(path) + "/"
        return EventStreamRoute(topic: { requested in
            guard requested.hasPrefix(prefix) else { return nil }
            let topic = requested.dropFirst(prefix.count)
            guard !topic.isEmpty, !topic.contains("/"), !topic.contains("%") else { return nil }   // decoded by the router
            return String(topic)
        }, answer: { request, topic in await streams.answer(to: request, topic: topic).onLoop })
    }

    /// `GET <path>`: the stream of `topic` — as the router's `streams.response(to:topic:)` gives it.
    public static func topic<Output>(_ topic: String, of streams: TopicEventStreams<Output>, at path: String) -> EventStreamRoute {
        let path = Self.normalized(path)
        return EventStreamRoute(topic: { $0 == path ? topic : nil },
                                answer: { request, topic in await streams.answer(to: request, topic: topic).onLoop })
    }

    /// `GET <path>?topic=a&topic=b…`: `streams`' stream of those topics on one connection — as the
    /// router's `streams.response(to:topics:)` gives it. A request without a `topic` parameter gets
    /// `single`'s stream when given (as `streams.response(to:topic:)` gives it), else 400.
    public static func topicList<Output>(_ streams: TopicEventStreams<Output>, at path: String, orElse single: String? = nil) -> EventStreamRoute {
        let path = Self.normalized(path)
        return EventStreamRoute(topic: { $0 == path ? "" : nil }, answer: { request, _ in
            let topics = TopicEventStreams<Output>.topics(of: request)
            if topics.isEmpty, let single { return await streams.answer(to: request, topic: single).onLoop }
            return await streams.answer(to: request, topics: topics).onLoop
        })
    }

    /// `GET <path>`: `events`' stream — as the router's `events.response(to:)` gives it.
    public static func feed<Output>(_ events: ServerSentEvents<Output>, at path: String) -> EventStreamRoute {
        let path = Self.normalized(path)
        return EventStreamRoute(topic: { $0 == path ? "" : nil },
                                answer: { request, _ in events.answer(to: request, filter: nil).onLoop })
    }

    /// `path` with one leading slash and no trailing one.
    private static func normalized(_ path: String) -> String {
        "/" + path.split(separator: "/").joined(separator: "/")
    }
}
#endif
