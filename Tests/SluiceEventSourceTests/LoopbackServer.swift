import Foundation
import Synchronization
@testable import SluiceEventSource
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (a port the system picks), on POSIX sockets, for the
/// client's tests: each connection runs `handler` on a thread of its own, which answers as the
/// test wants — well or badly (partial frames, a connection dropped mid-event, statuses).
final class LoopbackServer: @unchecked Sendable {
    /// A request the server read.
    struct Request: Sendable {
        let method: String
        let path: String
        /// Header names lowercased.
        let headers: [String: String]
        /// Which connection of the server it came on (0, 1, ...).
        let index: Int
    }

    let port: UInt16
    private let listener: Int32
    /// The requests received, in order.
    let requests = Recorder<Request>()
    /// The indices of the connections that the client closed (the server read EOF or an error).
    let closed = Recorder<Int>()
    private let handler: @Sendable (Connection) -> Void
    private let readsRequests: Bool
    private let stopped = Atomic<Bool>(false)

    /// Starts listening; `handler` runs for each connection, after its request was read (or at
    /// once, with `readsRequests` false: a server that answers what a client did not ask).
    init(readsRequests: Bool = true, handler: @escaping @Sendable (Connection) -> Void) throws {
        self.handler = handler
        self.readsRequests = readsRequests
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String = "/events") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops accepting connections.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }   // once: the fd number is reused
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        var index = 0
        while !stopped.load(ordering: .relaxed) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            #if canImport(Darwin)
            var one: Int32 = 1   // a write to a closed peer fails instead of raising SIGPIPE
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let connection = Connection(fd: fd, index: index, server: self)
            index += 1
            let thread = Thread { [self] in
                if readsRequests {
                    guard let request = connection.readRequest() else { connection.close(); return }
                    requests.append(request)
                }
                handler(connection)
            }
            thread.start()
        }
    }

    /// One accepted connection, used from its handler's thread.
    final class Connection: @unchecked Sendable {
        let fd: Int32
        let index: Int
        private(set) var request: Request!
        private unowned let server: LoopbackServer
        private var isClosed = false

        init(fd: Int32, index: Int, server: LoopbackServer) {
            self.fd = fd
            self.index = index
            self.server = server
        }

        fileprivate func readRequest() -> Request? {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &chunk, chunk.count, 0)
                guard count > 0 else { return nil }
                bytes += chunk[0..<count]
                if let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
                    let lines = head.components(separatedBy: "\r\n")
                    let parts = lines[0].split(separator: " ")
                    guard parts.count >= 2 else { return nil }
                    var headers: [String: String] = [:]
                    for line in lines.dropFirst() {
                        guard let colon = line.firstIndex(of: ":") else { continue }
                        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    }
                    request = Request(method: String(parts[0]), path: String(parts[1]), headers: headers, index: index)
                    return request
                }
            }
        }

        /// Writes `text`'s UTF-8 bytes; `false` if the peer is gone.
        @discardableResult
        func write(_ text: String) -> Bool {
            write(Array(text.utf8))
        }

        /// Writes `bytes`; `false` if the peer is gone.
        @discardableResult
        func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                #if canImport(Glibc)
                let flags = Int32(MSG_NOSIGNAL)
                #else
                let flags: Int32 = 0
                #endif
                let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }

        /// The head of an event stream response (200, `text/event-stream`, no length: the body
        /// ends when the connection closes).
        @discardableResult
        func writeStreamHead() -> Bool {
            write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")
        }

        /// A whole response with `status` and an empty body, then the connection closed.
        func respond(status: Int, reason: String, headers: String = "") {
            write("HTTP/1.1 \(status) \(reason)\r\n\(headers)Content-Length: 0\r\nConnection: close\r\n\r\n")
            close()
        }

        /// Reads until the client closes its side (or `limit` passes); records the close.
        /// Returns whether the client closed.
        @discardableResult
        func waitForClientClose(limit: Double = 10) -> Bool {
            let deadline = Date().addingTimeInterval(limit)
            var buffer = [UInt8](repeating: 0, count: 1024)
            while Date() < deadline {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 100)
                if ready > 0 {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 {
                        server.closed.append(index)
                        return true
                    }
                }
            }
            return false
        }

        /// Closes the connection (an abrupt end of the body, if it was streaming).
        func close() {
            guard !isClosed else { return }
            isClosed = true
            shutdown(fd, Int32(SHUT_RDWR))
            #if canImport(Glibc)
            _ = Glibc.close(fd)
            #else
            _ = Darwin.close(fd)
            #endif
        }
    }
}

/// Values recorded from any thread, and waits until they satisfy a condition (with a generous
/// limit: the wait ends as soon as the condition holds, never by the clock alone).
final class Recorder<Value: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable ([Value]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let state = Locked<(values: [Value], waiters: [UInt64: Waiter], next: UInt64)>(([], [:], 0))

    /// The values so far.
    var values: [Value] { state.withLock { $0.values } }

    func append(_ value: Value) {
        let ready: [CheckedContinuation<Bool, Never>] = state.withLock { state in
            state.values.append(value)
            var ready: [CheckedContinuation<Bool, Never>] = []
            for (key, waiter) in state.waiters where waiter.condition(state.values) {
                ready.append(waiter.continuation)
                state.waiters[key] = nil
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Waits until `condition` holds for the values (`true`), or `limit` seconds passed (`false`).
    func wait(limit: Double = 10, until condition: @escaping @Sendable ([Value]) -> Bool) async -> Bool {
        let key: UInt64 = state.withLock { state in
            state.next += 1
            return state.next
        }
        var timeout: Task<Void, Never>?
        let result = await withCheckedContinuation { continuation in
            let satisfied: Bool = state.withLock { state in
                if condition(state.values) { return true }
                state.waiters[key] = Waiter(condition: condition, continuation: continuation)
                return false
            }
            if satisfied {
                continuation.resume(returning: true)
            } else {
                timeout = Task {
                    try? await Task.sleep(for: .seconds(limit))
                    let waiter = state.withLock { $0.waiters.removeValue(forKey: key) }
                    waiter?.continuation.resume(returning: false)
                }
            }
        }
        timeout?.cancel()
        return result
    }

    /// Waits until there are at least `count` values.
    func wait(forCount count: Int, limit: Double = 10) async -> Bool {
        await wait(limit: limit) { $0.count >= count }
    }

    /// Waits, blocking the calling thread (a server connection's), until there are at least
    /// `count` values or `limit` seconds passed.
    func wait(forCountBlocking count: Int, limit: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while values.count < count {
            guard Date() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}
