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
    /// What a request for a topic gets; the channel and logger make the middleware's context.
    let answer: @Sendable (Request, String, ApplicationRequestContextSource) async -> LoopStreamAnswer

    /// `GET <path>/{topic}`: `streams`' answer for the topic — as the router's
    /// `streams.response(to:topic:)` gives it.
    public static func topics<Output>(_ streams: TopicEventStreams<Output>, under path: String) -> EventStreamRoute {
        let prefix = Self.normalized(path) + "/"
        return EventStreamRoute(topic: { requested in
            guard requested.hasPrefix(prefix) else { return nil }
            let topic = requested.dropFirst(prefix.count)
            guard !topic.isEmpty, !topic.contains("/"), !topic.contains("%") else { return nil }   // decoded by the router
            return String(topic)
        }, answer: { request, topic, _ in await streams.answer(to: request, topic: topic).onLoop })
    }

    /// `GET <path>`: the stream of `topic` — as the router's `streams.response(to:topic:)` gives it.
    public static func topic<Output>(_ topic: String, of streams: TopicEventStreams<Output>, at path: String) -> EventStreamRoute {
        let path = Self.normalized(path)
        return EventStreamRoute(topic: { $0 == path ? topic : nil },
                                answer: { request, topic, _ in await streams.answer(to: request, topic: topic).onLoop })
    }

    /// `GET <path>?topic=a&topic=b…`: `streams`' stream of those topics on one connection — as the
    /// router's `streams.response(to:topics:)` gives it. A request without a `topic` parameter gets
    /// `single`'s stream when given (as `streams.response(to:topic:)` gives it), else 400.
    public static func topicList<Output>(_ streams: TopicEventStreams<Output>, at path: String, orElse single: String? = nil) -> EventStreamRoute {
        let path = Self.normalized(path)
        return EventStreamRoute(topic: { $0 == path ? "" : nil }, answer: { request, _, _ in
            let topics = TopicEventStreams<Output>.topics(of: request)
            if topics.isEmpty, let single { return await streams.answer(to: request, topic: single).onLoop }
            return await streams.answer(to: request, topics: topics).onLoop
        })
    }

    /// `GET <path>`: `events`' stream — as the router's `events.response(to:)` gives it.
    public static func feed<Output>(_ events: ServerSentEvents<Output>, at path: String) -> EventStreamRoute {
        let path = Self.normalized(path)
        return EventStreamRoute(topic: { $0 == path ? "" : nil },
                                answer: { request, _, _ in events.answer(to: request, filter: nil).onLoop })
    }

    /// This route with `middleware` applied to its requests as the application's router applies it
    /// to the same path's: the middleware sees the request first, and the stream's answer — its
    /// head, or its refusal — is what `next` returns to it; the head the connection gets is the
    /// response the middleware returns (the headers it added, CORS's say), and a middleware that
    /// answers by itself or throws (an authenticator's 401) answers the request instead, as the
    /// router would (an `HTTPResponseError` as its response, any other error as 500).
    ///
    /// ```swift
    /// let cors = CORSMiddleware<BasicRequestContext>(allowOrigin: .originBased)
    /// router.add(middleware: cors)
    /// let app = Application(router: router, server: .eventStreams([.topics(streams, under: "events").applying(cors)]))
    /// ```
    ///
    /// A stream's head keeps its `Content-Type`, and its body is the stream's whatever the
    /// middleware does to the response's body; a middleware's answer of its own is sent with its
    /// body, read whole, and the connection closed.
    public func applying<Middleware: RouterMiddleware>(_ middleware: Middleware) -> EventStreamRoute
    where Middleware.Context: RequestContext, Middleware.Context.Source == ApplicationRequestContextSource {
        let inner = answer
        return EventStreamRoute(topic: topic, answer: { request, topic, source in
            let context = Middleware.Context(source: source)
            let inners = AnswerBox()
            let response: Response
            do {
                response = try await middleware.handle(request, context: context) { request, _ in
                    let answer = await inner(request, topic, source)
                    inners.answer = answer
                    return answer.response
                }
            } catch let error as any HTTPResponseError {
                guard let answered = try? error.response(from: request, context: context) else {
                    return .refused(StreamRefusal(status: .internalServerError, text: "", retryAfter: nil))
                }
                return .refused(await StreamRefusal(answered))
            } catch {
                return .refused(StreamRefusal(status: .internalServerError, text: "", retryAfter: nil))
            }
            switch inners.answer {
            case .stream(let stream, _) where response.status == .ok:
                var headers = response.headers
                headers[.contentType] = eventStreamHead.headerFields[.contentType]
                return .stream(stream, headers: headers)
            case .refused(var refusal) where response.status == refusal.status:
                refusal.headers = response.headers
                return .refused(refusal)
            default:
                return .refused(await StreamRefusal(response))
            }
        })
    }

    /// `path` with one leading slash and no trailing one.
    private static func normalized(_ path: String) -> String {
        "/" + path.split(separator: "/").joined(separator: "/")
    }
}
/// The answer a route's middleware's `next` gave, kept for the route (set once, by `next`).
final class AnswerBox: @unchecked Sendable {
    var answer: LoopStreamAnswer?
}

extension LoopStreamAnswer {
    /// The answer as the router's route would return it to its middleware: a stream's head (its
    /// body is never read: the stream is written by the connection's handler), or the refusal.
    var response: Response {
        switch self {
        case .refused(let refusal): refusal.response
        case .stream(_, let headers): Response(status: .ok, headers: headers)
        }
    }
}

extension StreamRefusal {
    /// A middleware's own answer, its body read whole.
    init(_ response: Response) async {
        let body = BodyCollector()
        try? await response.body.write(body)
        self.init(status: response.status, text: String(buffer: body.collected), retryAfter: nil, headers: response.headers)
    }
}

/// A response body's bytes, collected.
final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var collected = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        collected.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
#endif
