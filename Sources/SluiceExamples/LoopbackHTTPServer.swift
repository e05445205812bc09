import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 and an ephemeral port, so that the data task example and
/// the tests of `URLSession.DataTaskPublisher` use a real network stack without leaving the machine. Each connection is served on a
/// thread of its own: the request line is read, `route` answers the path, and the connection is
/// closed. A route may instead hold the connection open until the client goes away, which the
/// server records, so a test can see that a cancel reached the network.
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// What the server answers to a path.
    public enum Reply: Sendable {
        /// A status code and a body.
        case respond(status: Int, body: [UInt8])
        /// Sends nothing and waits until the client closes the connection.
        case holdUntilClientCloses
    }

    /// The port the server listens on.
    public let port: UInt16
    private let listener: Int32
    private let route: @Sendable (String) -> Reply
    private let state = NSCondition()
    private var requests: [String] = []
    private var closedByClient = 0
    private var stopped = false

    /// Starts listening; `route` maps a request path to a reply.
    public init(route: @escaping @Sendable (String) -> Reply) throws {
        self.route = route
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The paths requested so far, in order of arrival.
    public var requestedPaths: [String] { state.withLock { requests } }

    /// Waits until `count` requests have arrived, or `timeout` passes; returns whether they did.
    public func waitForRequests(_ count: Int, timeout: TimeInterval = 10) -> Bool {
        wait(timeout) { $0.requests.count >= count }
    }

    /// Waits until a held connection has been closed by the client, or `timeout` passes.
    public func waitForClientClose(timeout: TimeInterval = 10) -> Bool {
        wait(timeout) { $0.closedByClient > 0 }
    }

    /// Stops accepting connections.
    public func stop() {
        let wasRunning = state.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if wasRunning {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    deinit { stop() }

    private func wait(_ timeout: TimeInterval, until done: (LoopbackHTTPServer) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock()
        defer { state.unlock() }
        while !done(self) {
            if !state.wait(until: deadline) { return done(self) }
        }
        return true
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if state.withLock({ stopped }) { return }
                continue
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        guard let path = readRequestPath(connection) else { return }
        state.withLock {
            requests.append(path)
            state.broadcast()
        }
        switch route(path) {
        case .respond(let status, let body):
            let head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Length: \(body.count)\r\n"
                + "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
            guard writeAll(connection, Array(head.utf8)) else { return }
            _ = writeAll(connection, body)
        case .holdUntilClientCloses:
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}
            state.withLock {
                closedByClient += 1
                state.broadcast()
            }
        }
    }

    /// Reads the request head and returns the path of its request line.
    private func readRequestPath(_ connection: Int32) -> String? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.ends(with: [13, 10, 13, 10]) {
            let n = recv(connection, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            received += chunk[..<n]
            if received.count > 65_536 { return nil }
        }
        let requestLine = String(decoding: received, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    private func writeAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    #endif

    /// A port on 127.0.0.1 that nothing listens on: bound, then closed again.
    public static func closedPort() throws -> UInt16 {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: []) }
        let port = server.port
        server.stop()
        return port
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
