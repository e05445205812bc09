#if !canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// A WebSocket client connection (RFC 6455) on a POSIX socket, for `ws:` URLs where Foundation's
/// `URLSessionWebSocketTask` cannot run (FoundationNetworking needs a libcurl built with WebSocket
/// support, which Linux distributions do not ship). It only reads: it answers pings and closes,
/// and sends pings of its own when the stream is silent.
///
/// One thread per connection does blocking reads. Suspending stops it before the next frame, so a
/// full buffer leaves the rest in the socket and TCP's flow control holds the server back; nothing
/// is dropped and the connection stays open.
final class SocketConnection: EventStreamConnection, @unchecked Sendable {
    typealias Driver = EventStreamDriver<SocketMessageDecoder>

    private let id: UInt64
    private let driver: Driver
    private let request: URLRequest
    private let maximumMessageSize: Int
    private let idleTimeout: Duration
    /// Guards `fd`, `paused` and `cancelled`; the reading thread waits on it while paused.
    private let condition = NSCondition()
    private var fd: Int32 = -1
    private var paused = false
    private var cancelled = false
    /// Bytes read; those before `consumed` are used.
    private var input: [UInt8] = []
    private var consumed = 0

    /// Why the reading ends.
    private enum End: Error {
        /// The network failed, or the stream ended without a close: reconnect.
        case lost(String)
        /// The server answered the handshake with another status than 101.
        case status(Int, retryAfter: Duration?)
        /// The server closed the connection with `code` and `reason`.
        case closed(code: Int, reason: String)
        /// The stream broke the protocol, or a message was too large.
        case failure(EventSourceError)
        /// Cancelled: report nothing.
        case cancelled
    }

    init(id: UInt64, driver: Driver, request: URLRequest, maximumMessageSize: Int, idleTimeout: Duration) {
        self.id = id
        self.driver = driver
        self.request = request
        self.maximumMessageSize = maximumMessageSize
        self.idleTimeout = idleTimeout
    }

    /// Starts the connection's thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "SluiceEventSource.EventSocket"
        thread.start()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }   // wakes a blocked read or write
        condition.broadcast()
        condition.unlock()
    }

    func suspend() {
        condition.lock()
        paused = true
        condition.unlock()
    }

    func resume() {
        condition.lock()
        paused = false
        condition.broadcast()
        condition.unlock()
    }

    // MARK: The connection's thread

    private func run() {
        let end: End
        do {
            try open()
            try handshake()
            try readMessages()
            end = .lost("the stream ended")
        } catch let caught as End {
            end = caught
        } catch {
            end = .lost(String(describing: error))
        }
        condition.lock()
        let wasCancelled = cancelled
        if fd >= 0 { close(fd) }
        fd = -1
        condition.unlock()
        guard !wasCancelled else { return }
        switch end {
        case .lost(let reason):
            driver.completed(id: id, error: SocketError(reason: reason))
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

    private func open() throws {
        guard let url = request.url, let rawHost = url.host else { throw End.failure(.invalidRequest) }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let port = url.port ?? 80
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw End.lost("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            // Close-on-exec: a process the app spawns must not hold the connection open.
            #if canImport(Glibc)
            let type = address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue)
            #else
            let type = address.pointee.ai_socktype | SOCK_CLOEXEC
            #endif
            let socketFD = socket(address.pointee.ai_family, type, address.pointee.ai_protocol)
            guard socketFD >= 0 else { lastError = errno; continue }
            var timeout = timeval(tv_sec: Int(idleTimeout.seconds.rounded(.down)),
                                  tv_usec: Int((idleTimeout.seconds.truncatingRemainder(dividingBy: 1) * 1e6).rounded()))
            if timeout.tv_sec == 0 && timeout.tv_usec == 0 { timeout.tv_usec = 1 }
            setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var yes: Int32 = 1
            setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            condition.lock()
            let proceed = !cancelled
            if proceed { fd = socketFD }
            condition.unlock()
            guard proceed else { close(socketFD); throw End.cancelled }
            if connect(socketFD, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                // A cancel during the connect may not have reached the socket.
                if condition.withLock({ cancelled }) { throw End.cancelled }
                return
            }
            lastError = errno
            condition.lock()
            fd = -1
            close(socketFD)
            condition.unlock()
        }
        throw End.lost("cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    private func handshake() throws {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw End.failure(.invalidRequest)
        }
        let handshake = WebSocketHandshake()
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        var hostHeader = components.percentEncodedHost ?? ""
        if hostHeader.contains(":") && !hostHeader.hasPrefix("[") { hostHeader = "[\(hostHeader)]" }
        if let port = components.port { hostHeader += ":\(port)" }
        var head = "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(handshake.key)\r\nSec-WebSocket-Version: 13\r\n"
        let own: Set<String> = ["host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version"]
        for (name, value) in request.allHTTPHeaderFields ?? [:] where !own.contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        try write(Array(head.utf8))

        // The response head: at most 16 KiB, up to its blank line.
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let range = input[consumed...].firstRange(of: terminator) {
                headEnd = range.upperBound
            } else if input.count - consumed > 16_384 {
                throw End.failure(.protocolViolation("a handshake response head longer than 16 KiB"))
            } else {
                try fill()
            }
        }
        let lines = String(decoding: input[consumed..<headEnd! - 4], as: UTF8.self).components(separatedBy: "\r\n")
        consumed = headEnd!
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else {
            throw End.failure(.protocolViolation("not an HTTP response: \(lines.first ?? "")"))
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard status == 101 else {
            throw End.status(status, retryAfter: StreamAnswer.retryAfter(headers["retry-after"]))
        }
        guard headers["upgrade"]?.lowercased() == "websocket",
              headers["sec-websocket-accept"] == handshake.expectedAccept else {
            throw End.failure(.protocolViolation("a 101 response that does not accept the WebSocket handshake"))
        }
        guard driver.responded(id: id, .stream) else { throw End.cancelled }
    }

    private func readMessages() throws {
        var message: [UInt8] = []
        var inMessage = false
        var pinged = false
        while true {
            try waitWhilePaused()
            let first: UInt8
            do {
                first = try byte()
            } catch End.lost(let reason) where reason == SocketConnection.timedOut && !pinged {
                // Silent for the idle timeout: ask the server, and give it one more.
                pinged = true
                try sendFrame(opcode: 0x9, payload: [])
                continue
            }
            pinged = false
            let second = try byte()
            let final = first & 0x80 != 0
            let opcode = first & 0x0F
            guard first & 0x70 == 0 else { throw End.failure(.protocolViolation("a frame with reserved bits set")) }
            guard second & 0x80 == 0 else { throw End.failure(.protocolViolation("a masked frame from the server")) }
            var length = UInt64(second & 0x7F)
            if length == 126 {
                length = try bytes(2).reduce(0) { $0 << 8 | UInt64($1) }
            } else if length == 127 {
                length = try bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
            }
            let isControl = opcode & 0x8 != 0
            if isControl {
                guard final, length <= 125 else { throw End.failure(.protocolViolation("a fragmented or long control frame")) }
                let payload = try bytes(Int(length))
                switch opcode {
                case 0x8:
                    let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                    let reason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
                    try? sendFrame(opcode: 0x8, payload: Array(payload.prefix(2)))
                    throw End.closed(code: code, reason: reason)
                case 0x9:
                    try sendFrame(opcode: 0xA, payload: payload)
                case 0xA:
                    break
                default:
                    throw End.failure(.protocolViolation("an unknown control opcode \(opcode)"))
                }
                continue
            }
            switch opcode {
            case 0x0 where inMessage, 0x1 where !inMessage, 0x2 where !inMessage:
                break
            default:
                throw End.failure(.protocolViolation("an unexpected data frame (opcode \(opcode))"))
            }
            guard UInt64(message.count) + length <= UInt64(maximumMessageSize) else {
                try? sendFrame(opcode: 0x8, payload: [0x03, 0xF1])   // 1009: message too big
                throw End.failure(.eventTooLarge(limit: maximumMessageSize))
            }
            message.append(contentsOf: try bytes(Int(length)))
            inMessage = !final
            if final {
                driver.received(id: id, Data(message))
                message.removeAll(keepingCapacity: message.count <= 65_536)
            }
        }
    }

    // MARK: Bytes

    private static let timedOut = "timed out"

    private func waitWhilePaused() throws {
        condition.lock()
        defer { condition.unlock() }
        while paused && !cancelled { condition.wait() }
        if cancelled { throw End.cancelled }
    }

    /// Reads more bytes into `input`.
    private func fill() throws {
        if consumed > 0 && consumed >= input.count / 2 {
            input.removeFirst(consumed)
            consumed = 0
        }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            input.append(contentsOf: chunk[0..<count])
            return
        }
        if condition.withLock({ cancelled }) { throw End.cancelled }
        if count == 0 { throw End.lost("the server closed the connection") }
        let error = errno
        if error == EAGAIN || error == EWOULDBLOCK { throw End.lost(SocketConnection.timedOut) }
        if error == EINTR { return }
        throw End.lost(String(cString: strerror(error)))
    }

    private func byte() throws -> UInt8 {
        while consumed >= input.count { try fill() }
        consumed += 1
        return input[consumed - 1]
    }

    private func bytes(_ count: Int) throws -> [UInt8] {
        while input.count - consumed < count { try fill() }
        consumed += count
        return Array(input[consumed - count..<consumed])
    }

    /// Sends a frame, masked as a client's must be.
    private func sendFrame(opcode: UInt8, payload: [UInt8]) throws {
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        var frame: [UInt8] = [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        try write(frame)
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count; continue }
            if condition.withLock({ cancelled }) { throw End.cancelled }
            if count < 0 && errno == EINTR { continue }
            throw End.lost(count == 0 ? "the connection closed" : String(cString: strerror(errno)))
        }
    }
}

/// Why a WebSocket connection was lost.
struct SocketError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
#endif
