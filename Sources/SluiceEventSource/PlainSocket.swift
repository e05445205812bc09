#if !canImport(Darwin)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// A TCP connection for the module's own clients on Linux (``WebSocketConnection`` and
/// ``HTTPStreamConnection``): blocking reads and writes on the connection's own thread, an idle
/// timeout on both, a pause the thread waits out before its next read, and a cancel that wakes
/// whatever it is blocked in.
///
/// `http:` and `ws:` URLs are a POSIX socket; `https:` and `wss:` ones, with the package trait
/// `TLS`, a ``TLSStream`` (SwiftNIO SSL), read and written through the same calls: the HTTP and
/// WebSocket code above does not know which it has.
final class PlainSocket: @unchecked Sendable {
    /// Why a connection's reading ends.
    enum End: Error {
        /// The network failed, or the stream ended early: reconnect.
        case lost(EventSourceError)
        /// The server answered with a status this transport does not read on.
        case status(Int, retryAfter: Duration?)
        /// The server closed a WebSocket with `code` and `reason`.
        case closed(code: Int, reason: String)
        /// The stream broke its protocol, or a message was too large.
        case failure(EventSourceError)
        /// Cancelled: report nothing.
        case cancelled
    }

    /// A response's status line and headers (names lowercased; a repeated header's last value).
    struct ResponseHead {
        let status: Int
        let headers: [String: String]
        /// The header fields as sent, for `Set-Cookie` (which repeats).
        let fields: [(name: String, value: String)]
    }

    private let idleTimeout: Duration
    /// What `https:` and `wss:` connections trust and present.
    private let tlsOptions: EventSource.TLSOptions
    /// Guards `fd`, `secure`, `paused` and `cancelled`; the reading thread waits on it while paused.
    private let condition = NSCondition()
    private var fd: Int32 = -1
    #if TLS
    /// The TLS connection, for `https:` and `wss:` (`fd` is then -1).
    private var secure: TLSStream?
    #endif
    private var paused = false
    private var cancelled = false
    /// Bytes read; those before `consumed` are used.
    private var input: [UInt8] = []
    private var consumed = 0
    /// What one `recv` reads into.
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    init(idleTimeout: Duration, tls: EventSource.TLSOptions = EventSource.TLSOptions()) {
        self.idleTimeout = idleTimeout
        tlsOptions = tls
    }

    #if TLS
    /// Whether `http:` and `ws:` go over NIO too, unencrypted (`false`: a POSIX socket). Only the
    /// measurement behind keeping them on POSIX sockets sets it (docs/FIGURES.md).
    static let plainOverNIO = Locked(false)
    #endif

    /// Whether this build reads `https:` and `wss:` itself (the package trait `TLS`).
    static var speaksTLS: Bool {
        #if TLS
        true
        #else
        false
        #endif
    }

    // MARK: Any thread

    /// Closes the connection, waking a blocked read or write; what it reads after throws
    /// `End.cancelled`.
    func cancel() {
        condition.lock()
        cancelled = true
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
        #if TLS
        let secure = secure
        #endif
        condition.broadcast()
        condition.unlock()
        #if TLS
        secure?.cancel()
        #endif
    }

    /// Stops the reading thread at its next ``waitWhilePaused()``.
    func suspend() {
        condition.lock()
        paused = true
        condition.unlock()
    }

    /// Lets the reading thread go on.
    func resume() {
        condition.lock()
        paused = false
        condition.broadcast()
        condition.unlock()
    }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { condition.withLock { cancelled } }

    // MARK: The connection's thread

    /// Connects to `url`'s host and port (80, or 443 for `https:` and `wss:`, if it names none),
    /// closing any earlier connection first; with TLS for `https:` and `wss:`.
    func connect(to url: URL) throws(End) {
        close()
        guard let rawHost = url.host else { throw .failure(.invalidRequest) }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let isSecure = ["https", "wss"].contains(url.scheme?.lowercased() ?? "")
        let port = url.port ?? (isSecure ? 443 : 80)
        #if TLS
        let overNIO = isSecure || Self.plainOverNIO.withLock { $0 }
        #else
        let overNIO = isSecure
        #endif
        if overNIO {
            #if TLS
            let stream = TLSStream.make(host: host, port: port, idleTimeout: idleTimeout)
            condition.lock()
            let proceed = !cancelled
            if proceed { secure = stream }
            condition.unlock()
            guard proceed else { throw .cancelled }
            try stream.open(port: port, options: tlsOptions, encrypted: isSecure)
            return
            #else
            throw .failure(.invalidRequest)
            #endif
        }
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
            throw .lost(.hostNotFound(host: host, detail: String(cString: gai_strerror(status))))
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
            guard proceed else { closeDescriptor(socketFD); throw .cancelled }
            if connectDescriptor(socketFD, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                // A cancel during the connect may not have reached the socket.
                if isCancelled { throw .cancelled }
                return
            }
            lastError = errno
            close()
        }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch lastError {
        case ECONNREFUSED: throw .lost(.connectionRefused(address: address))
        case ETIMEDOUT, EAGAIN, EINPROGRESS: throw .lost(.timedOut)
        default: throw .lost(.connectionLost("cannot connect to \(address): \(String(cString: strerror(lastError)))"))
        }
    }

    /// Closes the connection (if open) and forgets the bytes read.
    func close() {
        condition.lock()
        if fd >= 0 { closeDescriptor(fd) }
        fd = -1
        #if TLS
        let secure = secure
        self.secure = nil
        #endif
        condition.unlock()
        #if TLS
        secure?.close()
        #endif
        input.removeAll()
        consumed = 0
    }

    /// Returns once not paused; throws `End.cancelled` once cancelled.
    func waitWhilePaused() throws(End) {
        condition.lock()
        defer { condition.unlock() }
        while paused && !cancelled { condition.wait() }
        if cancelled { throw .cancelled }
    }

    /// The head of a request for `url`: its request line and `Host`, then `headers`.
    static func requestHead(method: String, url: URL, headers: [(String, String)]) throws(End) -> [UInt8] {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw .failure(.invalidRequest) }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        var host = components.percentEncodedHost ?? ""
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        if let port = components.port { host += ":\(port)" }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers where name.lowercased() != "host" {
            // A line break in a caller's header would start a header of its own.
            guard !name.contains(where: \.isNewline), !value.contains(where: \.isNewline) else { throw .failure(.invalidRequest) }
            head += "\(name): \(value)\r\n"
        }
        return Array((head + "\r\n").utf8)
    }

    /// Reads a response head: at most 16 KiB, up to its blank line.
    func readResponseHead() throws(End) -> ResponseHead {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let range = input[consumed...].firstRange(of: terminator) {
                headEnd = range.upperBound
            } else if input.count - consumed > 16_384 {
                throw .failure(.protocolViolation("a response head longer than 16 KiB"))
            } else {
                try fill()
            }
        }
        let lines = String(decoding: input[consumed..<headEnd! - 4], as: UTF8.self).components(separatedBy: "\r\n")
        consumed = headEnd!
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else {
            throw .failure(.protocolViolation("not an HTTP response: \(lines.first ?? "")"))
        }
        var headers: [String: String] = [:]
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name.lowercased()] = value
            fields.append((name, value))
        }
        return ResponseHead(status: status, headers: headers, fields: fields)
    }

    /// Reads more bytes into the input; `false` at the end of the stream.
    @discardableResult
    func fill(endIsLost: Bool = true) throws(End) -> Bool {
        if consumed > 0 && consumed >= input.count / 2 {
            input.removeFirst(consumed)
            consumed = 0
        }
        #if TLS
        if let secure = condition.withLock({ secure }) {
            let count = try secure.receive(into: &chunk)
            if count > 0 {
                input.append(contentsOf: chunk[0..<count])
                return true
            }
            if isCancelled { throw .cancelled }
            if endIsLost { throw .lost(.connectionLost("the server closed the connection")) }
            return false
        }
        #endif
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            input.append(contentsOf: chunk[0..<count])
            return true
        }
        if isCancelled { throw .cancelled }
        if count == 0 {
            if endIsLost { throw .lost(.connectionLost("the server closed the connection")) }
            return false
        }
        let error = errno
        if error == EAGAIN || error == EWOULDBLOCK { throw .lost(.timedOut) }
        if error == EINTR { return true }
        throw .lost(.connectionLost(String(cString: strerror(error))))
    }

    /// Whether no byte read is left unused.
    var isDrained: Bool { consumed >= input.count }

    /// The next byte.
    func byte() throws(End) -> UInt8 {
        while consumed >= input.count { try fill() }
        consumed += 1
        return input[consumed - 1]
    }

    /// The next `count` bytes.
    func bytes(_ count: Int) throws(End) -> [UInt8] {
        while input.count - consumed < count { try fill() }
        consumed += count
        return Array(input[consumed - count..<consumed])
    }

    /// The unused bytes read, up to `limit` (none if nothing is read yet).
    func take(upTo limit: Int) -> Data {
        let count = min(limit, input.count - consumed)
        consumed += count
        return Data(input[consumed - count..<consumed])
    }

    /// The bytes up to the next CRLF, without it (at most `limit` bytes).
    func line(limit: Int) throws(End) -> String {
        while true {
            if let range = input[consumed...].firstRange(of: [13, 10]) {
                let line = String(decoding: input[consumed..<range.lowerBound], as: UTF8.self)
                consumed = range.upperBound
                return line
            }
            if input.count - consumed > limit { throw .failure(.protocolViolation("a line longer than \(limit) bytes")) }
            try fill()
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws(End) {
        #if TLS
        if let secure = condition.withLock({ secure }) { return try secure.write(bytes) }
        #endif
        try write(bytes, to: fd)
    }

    /// Writes all of `bytes` from any thread, through a duplicate of the descriptor: the
    /// connection's thread may close its own meanwhile (a cancel's shutdown ends the write too).
    /// Callers take turns: two writes at once would interleave their bytes.
    func writeFromAnyThread(_ bytes: [UInt8]) throws(End) {
        #if TLS
        if let secure = condition.withLock({ cancelled ? nil : secure }) { return try secure.write(bytes) }
        #endif
        condition.lock()
        let copy = fd >= 0 && !cancelled ? dup(fd) : -1
        condition.unlock()
        guard copy >= 0 else { throw .cancelled }
        defer { closeDescriptor(copy) }
        try write(bytes, to: copy)
    }

    private func write(_ bytes: [UInt8], to fd: Int32) throws(End) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count; continue }
            if isCancelled { throw .cancelled }
            if count < 0 && errno == EINTR { continue }
            throw .lost(.connectionLost(count == 0 ? "the connection closed" : String(cString: strerror(errno))))
        }
    }
}

/// `close(2)`, which `PlainSocket.close()` hides inside the class.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// `connect(2)`, which `PlainSocket.connect(to:defaultPort:)` hides inside the class.
private func connectDescriptor(_ fd: Int32, _ address: UnsafePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
#endif
