#if Hummingbird
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import SluiceFeed
import Synchronization

/// A refusal of a stream, before it starts: its status, a line of text, and when to try again.
struct StreamRefusal: Error, Sendable {
    let status: HTTPResponse.Status
    let text: String
    /// `Retry-After`, in seconds, when trying again may succeed.
    let retryAfter: Int?
    /// The whole head's fields, when the application's middleware gave them (else made of the above).
    var headers: HTTPFields?

    /// The feed serves as many clients as it may.
    static let full = StreamRefusal(.full)

    /// As a Hummingbird response: `text/plain`, with `Retry-After` if any.
    var response: Response {
        Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The head's fields: `text/plain`, with `Retry-After` if any — or the middleware's.
    var fields: HTTPFields {
        if let headers { return headers }
        var fields: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if let retryAfter { fields[.retryAfter] = String(retryAfter) }
        return fields
    }

    /// As the bytes of an HTTP/1.1 response that closes its connection: the same head and body.
    func bytes(date: String) -> ByteBuffer {
        let body = ByteBuffer(string: text)
        let reason = HTTPResponseStatus(statusCode: status.code).reasonPhrase   // HTTP types' is empty for a status made from its code
        var bytes = ByteBuffer(string: "HTTP/1.1 \(status.code) \(reason)\r\n")
        for field in fields where ![.contentLength, .connection, .date, .transferEncoding].contains(field.name) {
            bytes.writeString("\(field.name.canonicalName): \(field.value)\r\n")
        }
        bytes.writeString("content-length: \(body.readableBytes)\r\n")
        bytes.writeString("connection: close\r\ndate: \(date)\r\n\r\n")
        bytes.writeImmutableBuffer(body)
        return bytes
    }
}

extension StreamRefusal {
    /// The refusal SluiceFeed decided, as Hummingbird answers it.
    init(_ refusal: FeedStreamRefusal) {
        self.init(status: .init(code: refusal.status), text: refusal.text, retryAfter: refusal.retryAfter)
    }
}

/// What a request for an event stream gets: a refusal, or its stream from a start.
enum EventStreamAnswer<Output: Sendable>: Sendable {
    case refused(StreamRefusal)
    case stream(ServerSentEvents<Output>, from: ResumePoint, filter: (@Sendable (Output) -> Bool)?)
    /// A stream of several topics.
    case topics(ServerSentEventTopics<Output>, [FeedTopic<Output>])

    /// The answer as a response whose body a task of Hummingbird's writes.
    func response(to request: Request) -> Response {
        switch self {
        case .refused(let refusal):
            return refusal.response
        case .stream(let events, let start, let filter):
            return Response(status: .ok, headers: eventStreamHead.headerFields, body: ResponseBody { writer in
                try await serveEventStream(events.stream.client(from: start, filter: filter), request: request, writer: writer)
            })
        case .topics(let streams, let topics):
            return Response(status: .ok, headers: eventStreamHead.headerFields, body: ResponseBody { writer in
                try await serveEventStream(streams.client(topics), request: request, writer: writer)
            })
        }
    }

    /// The answer for a writer on the connection's event loop.
    var onLoop: LoopStreamAnswer {
        switch self {
        case .refused(let refusal): .refused(refusal)
        case .stream(let events, let start, let filter): .stream(LoopStreamSource(stream: events.stream, start: start, filter: filter),
                                                                 headers: eventStreamHead.headerFields)
        case .topics(let streams, let topics): .stream(LoopTopicsSource(streams: streams, topics: topics), headers: eventStreamHead.headerFields)
        }
    }
}

/// An `EventStreamAnswer` without its value type, for `EventStreamHandler`.
enum LoopStreamAnswer: Sendable {
    case refused(StreamRefusal)
    /// The stream, its head's fields (the event stream's, and what the middleware added).
    case stream(any LoopStream, headers: HTTPFields)
}

/// A stream to begin on a connection's event loop: its client joins the feed, and its messages
/// become bytes.
protocol LoopStream: Sendable {
    /// Joins the feed, the client's timers on `loop`.
    func connect(on loop: any EventLoop) -> ClientOutlet
    /// What the stream begins with.
    var preamble: ByteBuffer? { get }
    /// How long the stream's last bytes may take to go once it has finished.
    var shutdownGrace: TimeAmount { get }
    /// The bytes of a batch of messages (`nil`: none, every event filtered out): the event's own
    /// frame, shared, when the batch is one event whose frame its feed made.
    func bytes(of messages: [ClientMessage]) -> ByteBuffer?
}

/// A `ServerSentEventStream`'s client, from its start and with its filter.
struct LoopStreamSource<Output: Sendable>: LoopStream {
    let stream: ServerSentEventStream<Output>
    let start: ResumePoint
    let writer: ServerSentEventWriter<Output>

    init(stream: ServerSentEventStream<Output>, start: ResumePoint, filter: (@Sendable (Output) -> Bool)?) {
        self.stream = stream
        self.start = start
        writer = stream.writer(filter: filter)
    }

    func connect(on loop: any EventLoop) -> ClientOutlet {
        stream.feed.connect(from: start, options: stream.options.stream, heartbeat: stream.options.heartbeat, on: loop)
    }

    var preamble: ByteBuffer? { stream.preamble }

    var shutdownGrace: TimeAmount { TimeAmount(stream.options.shutdownGrace) }

    func bytes(of messages: [ClientMessage]) -> ByteBuffer? { writer.bytes(of: messages) }
}

/// A `ServerSentEventTopics`' client of its topics. It lets go of the list once it has joined
/// them: the connection keeps what its writer needs (the topics' names, filters and positions).
final class LoopTopicsSource<Output: Sendable>: LoopStream {
    let streams: ServerSentEventTopics<Output>
    let writer: ServerSentEventWriter<Output>
    private let topics: Mutex<[FeedTopic<Output>]>

    init(streams: ServerSentEventTopics<Output>, topics: [FeedTopic<Output>]) {
        self.streams = streams
        self.topics = Mutex(topics)
        writer = streams.writer(topics)
    }

    func connect(on loop: any EventLoop) -> ClientOutlet {
        streams.connect(topics.withLock(of: self) { topics in
            defer { topics = [] }
            return topics
        }, on: loop)
    }

    var preamble: ByteBuffer? { streams.preamble }

    var shutdownGrace: TimeAmount { TimeAmount(streams.options.shutdownGrace) }

    func bytes(of messages: [ClientMessage]) -> ByteBuffer? { writer.bytes(of: messages) }
}

/// The head of every event stream's response: `text/event-stream`, not cached, not buffered by
/// nginx (`X-Accel-Buffering: no`).
let eventStreamHead = HTTPResponse(status: .ok, headerFields: [
    .contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no",
])

/// A head with `headers` (the event stream's, and what middleware added) as the bytes of an
/// HTTP/1.1 response whose body ends when its connection closes.
func eventStreamHead(date: String, headers: HTTPFields = eventStreamHead.headerFields) -> ByteBuffer {
    var bytes = ByteBuffer(string: "HTTP/1.1 200 OK\r\n")
    for field in headers where ![.contentLength, .connection, .date, .transferEncoding].contains(field.name) {
        bytes.writeString("\(field.name.canonicalName): \(field.value)\r\n")
    }
    bytes.writeString("connection: close\r\ndate: \(date)\r\n\r\n")
    return bytes
}
#endif
