import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import SluiceFeed

// What the server package's tests share: an SSE client over real sockets.

/// Waits until `condition` holds, polling; gives up after `timeout` seconds (generous: the tests
/// wait on events, never on durations). Returns whether it held.
@discardableResult
public func waitUntil(timeout: Double = 60, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// One frame of an SSE stream as a client sees it: the fields of one block between blank lines.
public struct SSEFrame: Equatable, CustomStringConvertible, Sendable {
    /// The position of the frame's `id:` (`<epoch>-<position>`).
    public var id: UInt64?
    /// The epoch of the frame's `id:`.
    public var epoch: String?
    public var event: String?
    public var data: [String] = []
    public var retry: Int?
    public var comments: [String] = []
    /// The frame's `id:` as written (a stream of several topics writes its cursor there).
    public var rawID: String?

    public var description: String {
        var parts: [String] = []
        if let id { parts.append("id \(epoch ?? "?")-\(id)") }
        if let event { parts.append("event \(event)") }
        if !data.isEmpty { parts.append("data \(data.joined(separator: "|").prefix(40))") }
        if let retry { parts.append("retry \(retry)") }
        if !comments.isEmpty { parts.append("comment \(comments)") }
        return parts.joined(separator: ", ")
    }

    public var isEvent: Bool { id != nil && event == nil }

    /// Frames are equal when their fields are: ``rawID`` is what ``id`` and ``epoch`` were read from.
    public static func == (a: SSEFrame, b: SSEFrame) -> Bool {
        a.id == b.id && a.epoch == b.epoch && a.event == b.event && a.data == b.data && a.retry == b.retry && a.comments == b.comments
    }

    /// An event of a stream of several topics: an `id:` and its topic's name as its `event:`.
    public var isTopicEvent: Bool {
        guard rawID != nil, let event else { return false }
        return !["reset", "dropped", "shutdown"].contains(event)
    }

    /// The frame's id as the server wrote it (`<epoch>-<position>`).
    public var eventID: EventID? {
        guard let id, let epoch else { return nil }
        return EventID(epoch: epoch, position: id)
    }

    /// A frame with these fields.
    public init(id: UInt64? = nil, epoch: String? = nil, event: String? = nil, data: [String] = [], retry: Int? = nil,
                comments: [String] = []) {
        self.id = id
        self.epoch = epoch
        self.event = event
        self.data = data
        self.retry = retry
        self.comments = comments
    }

    /// The frame without its epoch, to compare with frames written without one.
    public var withoutEpoch: SSEFrame {
        var frame = self
        frame.epoch = nil
        return frame
    }
    public var droppedCount: Int? {
        guard event == "dropped", let text = data.first, let colon = text.lastIndex(of: ":") else { return nil }
        return Int(text[text.index(after: colon)...].dropLast())
    }
}

/// A raw SwiftNIO HTTP/1.1 client reading an SSE response as it arrives: it records the response
/// head and every frame. With `reading` false it connects and sends its request but reads nothing
/// (a stalled client: TCP fills up), until ``startReading()``.
public final class SSEClient: Sendable {
    struct State {
        var status: HTTPResponseStatus?
        var headers: HTTPHeaders?
        var pending: [UInt8] = []
        var scanned = 0
        var frames: [SSEFrame] = []
        var ended = false
        var closed = false
    }

    public let channel: any Channel
    private let state: NIOLockedValueBox<State>

    private init(channel: any Channel, state: NIOLockedValueBox<State>) {
        self.channel = channel
        self.state = state
    }

    public static func connect(port: Int, path: String = "/events", lastEventID: String? = nil, reading: Bool = true,
                               receiveBuffer: Int? = nil, headers extra: [(String, String)] = []) async throws -> SSEClient {
        let state = NIOLockedValueBox(State())
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: reading)
            .connectTimeout(.seconds(60))
        if let receiveBuffer {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
        }
        let channel = try await bootstrap.channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                try channel.pipeline.syncOperations.addHandler(SSEHandler(state: state))
            }
        }.connect(host: "127.0.0.1", port: port).get()
        var headers = HTTPHeaders([("Host", "127.0.0.1:\(port)"), ("Accept", "text/event-stream")])
        if let lastEventID { headers.add(name: "Last-Event-ID", value: lastEventID) }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        return SSEClient(channel: channel, state: state)
    }

    public var frames: [SSEFrame] { state.withLockedValue { $0.frames } }
    public var events: [SSEFrame] { frames.filter(\.isEvent) }
    public var status: HTTPResponseStatus? { state.withLockedValue { $0.status } }
    public var headers: HTTPHeaders? { state.withLockedValue { $0.headers } }
    /// The response ended (its last chunk arrived) or the connection closed.
    public var ended: Bool { state.withLockedValue { $0.ended || $0.closed } }
    public var closed: Bool { state.withLockedValue { $0.closed } }

    @discardableResult
    public func wait(timeout: Double = 60, until condition: ([SSEFrame]) -> Bool) async -> Bool {
        await waitUntil(timeout: timeout) { condition(frames) }
    }

    public func startReading() async throws {
        try await channel.setOption(.autoRead, value: true).get()
        channel.read()
    }

    public func close() async {
        try? await channel.close().get()
    }
}

private final class SSEHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let state: NIOLockedValueBox<SSEClient.State>

    init(state: NIOLockedValueBox<SSEClient.State>) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            state.withLockedValue {
                $0.status = head.status
                $0.headers = head.headers
            }
        case .body(let buffer):
            state.withLockedValue { state in
                state.pending += buffer.readableBytesView
                // Frames end with a blank line; scan only what has not been scanned yet.
                var index = max(state.scanned - 1, 0)
                var start = 0
                while index + 1 < state.pending.count {
                    if state.pending[index] == UInt8(ascii: "\n"), state.pending[index + 1] == UInt8(ascii: "\n") {
                        let block = String(decoding: state.pending[start..<index], as: UTF8.self)
                        state.frames.append(SSEHandler.parse(block[...]))
                        start = index + 2
                        index = start
                    } else {
                        index += 1
                    }
                }
                state.pending.removeFirst(start)
                state.scanned = state.pending.count
            }
        case .end:
            state.withLockedValue { $0.ended = true }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.withLockedValue { $0.closed = true }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    static func parse(_ block: Substring) -> SSEFrame {
        var frame = SSEFrame()
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                frame.comments.append(String(line.dropFirst().drop(while: { $0 == " " })))
                continue
            }
            let (field, value): (Substring, Substring)
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                var rest = line[line.index(after: colon)...]
                if rest.first == " " { rest = rest.dropFirst() }
                value = rest
            } else {
                (field, value) = (line, "")
            }
            switch field {
            case "id":
                frame.rawID = String(value)
                let eventID = EventID(String(value))
                frame.id = eventID?.position
                frame.epoch = eventID?.epoch
            case "event": frame.event = String(value)
            case "data": frame.data.append(String(value))
            case "retry": frame.retry = Int(value)
            default: break
            }
        }
        return frame
    }
}

