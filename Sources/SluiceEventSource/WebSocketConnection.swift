#if !canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WebSocket client connection (RFC 6455) on a ``PlainSocket``, for `ws:` URLs (and `wss:` ones
/// with the package trait `TLS`, the socket then a TLS connection) where
/// Foundation's `URLSessionWebSocketTask` cannot run (FoundationNetworking needs a libcurl built
/// with WebSocket support, which Linux distributions do not ship). It reads; it answers pings and
/// closes, sends pings of its own when the stream is silent, and sends the text messages of a
/// socket of topics (``send(text:)``, from any thread: one frame at a time).
///
/// One thread per connection does blocking reads. Suspending stops it before the next frame, so a
/// full buffer leaves the rest in the socket and TCP's flow control holds the server back; nothing
/// is dropped and the connection stays open.
final class WebSocketConnection: EventStreamConnection, @unchecked Sendable {
    typealias Driver = EventStreamDriver<SocketMessageDecoder>
    private typealias End = PlainSocket.End

    private let id: UInt64
    private let driver: Driver
    private let request: URLRequest
    private let maximumMessageSize: Int
    private let socket: PlainSocket
    /// Held while a frame is written: the reading thread's pongs and closes, and other threads'
    /// text messages, never interleave.
    private let writing = Locked(())

    init(id: UInt64, driver: Driver, request: URLRequest, maximumMessageSize: Int, idleTimeout: Duration,
         tls: EventSource.TLSOptions) {
        self.id = id
        self.driver = driver
        self.request = request
        self.maximumMessageSize = maximumMessageSize
        socket = PlainSocket(idleTimeout: idleTimeout, tls: tls)
    }

    /// Starts the connection's thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "SluiceEventSource.EventSocket"
        thread.start()
    }

    var pauseMethod: EventStreamPauseMethod { .suspend }
    func cancel() { socket.cancel() }
    func suspend() { socket.suspend() }
    func resume() { socket.resume() }

    /// Sends `text` as a text message; a failure is left to the reading thread to find.
    func send(text: String) {
        try? sendFrame(opcode: 0x1, payload: Array(text.utf8))
    }

    // MARK: The connection's thread

    private func run() {
        let end: End
        do throws(End) {
            guard let url = request.url else { throw End.failure(.invalidRequest) }
            try socket.connect(to: url)
            try handshake(url: url)
            try readMessages()
        } catch {
            end = error
        }
        socket.close()
        guard !socket.isCancelled else { return }
        switch end {
        case .lost(let error):
            driver.completed(id: id, error: error)
        case .status(let status, let retryAfter):
            _ = driver.responded(id: id, .status(status, retryAfter: retryAfter))
        case .closed(let code, let reason):
            driver.closed(id: id, code: code, reason: reason)
        case .failure(let error):
            driver.ended(id: id, with: .failure(error))
        case .cancelled:
            break
        }
    }

    private func handshake(url: URL) throws(End) {
        let handshake = WebSocketHandshake()
        let own: Set<String> = ["host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version"]
        var headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", handshake.key),
                       ("Sec-WebSocket-Version", "13")]
        for (name, value) in request.allHTTPHeaderFields ?? [:] where !own.contains(name.lowercased()) {
            headers.append((name, value))
        }
        try socket.write(PlainSocket.requestHead(method: "GET", url: url, headers: headers))
        let head = try socket.readResponseHead()
        guard head.status == 101 else {
            throw .status(head.status, retryAfter: StreamAnswer.retryAfter(head.headers["retry-after"]))
        }
        guard head.headers["upgrade"]?.lowercased() == "websocket",
              head.headers["sec-websocket-accept"] == handshake.expectedAccept else {
            throw .failure(.protocolViolation("a 101 response that does not accept the WebSocket handshake"))
        }
        guard driver.responded(id: id, .stream) else { throw .cancelled }
    }

    /// Reads frames until the stream ends; returns never (it throws how it ended).
    private func readMessages() throws(End) -> Never {
        var message: [UInt8] = []
        var inMessage = false
        var pinged = false
        while true {
            try socket.waitWhilePaused()
            let first: UInt8
            do throws(End) {
                first = try socket.byte()
            } catch .lost(.timedOut) where !pinged {
                // Silent for the idle timeout: ask the server, and give it one more.
                pinged = true
                try sendFrame(opcode: 0x9, payload: [])
                continue
            }
            pinged = false
            let second = try socket.byte()
            let final = first & 0x80 != 0
            let opcode = first & 0x0F
            guard first & 0x70 == 0 else { throw .failure(.protocolViolation("a frame with reserved bits set")) }
            guard second & 0x80 == 0 else { throw .failure(.protocolViolation("a masked frame from the server")) }
            var length = UInt64(second & 0x7F)
            if length == 126 {
                length = try socket.bytes(2).reduce(0) { $0 << 8 | UInt64($1) }
            } else if length == 127 {
                length = try socket.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
            }
            let isControl = opcode & 0x8 != 0
            if isControl {
                guard final, length <= 125 else { throw .failure(.protocolViolation("a fragmented or long control frame")) }
                let payload = try socket.bytes(Int(length))
                switch opcode {
                case 0x8:
                    let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                    let reason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
                    try? sendFrame(opcode: 0x8, payload: Array(payload.prefix(2)))
                    throw .closed(code: code, reason: reason)
                case 0x9:
                    try sendFrame(opcode: 0xA, payload: payload)
                case 0xA:
                    break
                default:
                    throw .failure(.protocolViolation("an unknown control opcode \(opcode)"))
                }
                continue
            }
            switch opcode {
            case 0x0 where inMessage, 0x1 where !inMessage, 0x2 where !inMessage:
                break
            default:
                throw .failure(.protocolViolation("an unexpected data frame (opcode \(opcode))"))
            }
            guard UInt64(message.count) + length <= UInt64(maximumMessageSize) else {
                try? sendFrame(opcode: 0x8, payload: [0x03, 0xF1])   // 1009: message too big
                throw .failure(.eventTooLarge(limit: maximumMessageSize))
            }
            message.append(contentsOf: try socket.bytes(Int(length)))
            inMessage = !final
            if final {
                driver.received(id: id, Data(message))
                message.removeAll(keepingCapacity: message.count <= 65_536)
            }
        }
    }

    /// Sends a frame, masked as a client's must be.
    private func sendFrame(opcode: UInt8, payload: [UInt8]) throws(End) {
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126:
            frame.append(0x80 | UInt8(payload.count))
        case ...0xFFFF:
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            frame += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(56 - $0 * 8)) }
        }
        frame += mask
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        let result: Result<Void, End> = writing.withLock { _ in
            do throws(End) {
                try socket.writeFromAnyThread(frame)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
#endif
