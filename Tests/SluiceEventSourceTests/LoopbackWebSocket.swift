import Foundation
@testable import SluiceEventSource
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's side of a WebSocket on a ``LoopbackServer`` connection: the handshake's answer
/// and frames written byte for byte as RFC 6455 says (or, on purpose, as it does not).
extension LoopbackServer.Connection {
    /// The `lastEventId` query parameter of the handshake request, if any.
    var lastEventId: String? { request.lastEventId }

    /// Answers the handshake with 101 and the accept value its key asks for (or `accept`).
    @discardableResult
    func acceptWebSocket(accept: String? = nil) -> Bool {
        let key = request.headers["sec-websocket-key"] ?? ""
        let value = accept ?? WebSocketHandshake(key: key).expectedAccept
        return write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(value)\r\n\r\n")
    }

    /// A frame's bytes as a server sends them (unmasked).
    static func frame(opcode: UInt8, _ payload: [UInt8], final: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(final ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126:
            bytes.append(UInt8(payload.count))
        case ...0xFFFF:
            bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(127)
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(56 - $0 * 8)) }
        }
        return bytes + payload
    }

    /// A text message in one frame.
    static func text(_ text: String) -> [UInt8] {
        frame(opcode: 0x1, Array(text.utf8))
    }

    /// A feed's event message: `{"id":"e-<n>","data":"<data>"}`.
    static func event(_ n: Int, _ data: String? = nil) -> [UInt8] {
        text("{\"id\":\"e-\(n)\",\"data\":\"\(data ?? "event \(n)")\"}")
    }

    /// A close frame with `code` and `reason`.
    static func close(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        frame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// Reads one frame the client sent (unmasked), or `nil` at EOF or after `limit` seconds.
    func readFrame(limit: Double = 10) -> (opcode: UInt8, payload: [UInt8])? {
        guard let head = read(2, limit: limit) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let extended = read(2, limit: limit) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            guard let extended = read(8, limit: limit) else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        let masked = head[1] & 0x80 != 0
        guard let mask = masked ? read(4, limit: limit) : [0, 0, 0, 0], let payload = read(length, limit: limit) else { return nil }
        return (head[0] & 0x0F, payload.enumerated().map { $0.element ^ mask[$0.offset % 4] })
    }

    /// Reads exactly `count` bytes, or `nil` at EOF or after `limit` seconds.
    private func read(_ count: Int, limit: Double) -> [UInt8]? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(limit)
        while bytes.count < count {
            guard Date() < deadline else { return nil }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) >= 0 else { return nil }
            guard descriptor.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: count - bytes.count)
            let received = recv(fd, &chunk, chunk.count, 0)
            guard received > 0 else { return nil }
            bytes += chunk[0..<received]
        }
        return bytes
    }
}

extension LoopbackServer.Request {
    /// The `lastEventId` query parameter of the request, if any.
    var lastEventId: String? {
        URLComponents(string: path)?.queryItems?.first { $0.name == "lastEventId" }?.value
    }
}

extension LoopbackServer {
    /// `ws://127.0.0.1:<port><path>`.
    func webSocketURL(_ path: String = "/ws") -> URL {
        URL(string: "ws://127.0.0.1:\(port)\(path)")!
    }
}
