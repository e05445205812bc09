import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A WebSocket opened over a bare TCP connection on loopback, reading the server's bytes as they
/// come: for a test of what a server sends right after its `101`, whatever a client library does
/// with bytes that arrive with the handshake's response.
public final class RawWebSocket: Sendable {
    private let channel: any Channel
    private let received: NIOLockedValueBox<[UInt8]>

    private init(channel: any Channel, received: NIOLockedValueBox<[UInt8]>) {
        self.channel = channel
        self.received = received
    }

    /// Connects to `port` and sends the handshake's request for `path`.
    public static func open(port: Int, path: String) async throws -> RawWebSocket {
        let received = NIOLockedValueBox<[UInt8]>([])
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received: received)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        return RawWebSocket(channel: channel, received: received)
    }

    /// The response's status line, once the head has come.
    public var statusLine: String? {
        let bytes = received.withLockedValue { $0 }
        guard let end = headEnd(bytes) else { return nil }
        return String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n").first
    }

    /// The opcodes of the whole frames the server sent after its head, in order (1: text, 8: close, 9: ping).
    public var opcodes: [UInt8] {
        let bytes = received.withLockedValue { $0 }
        guard var index = headEnd(bytes).map({ $0 + 4 }) else { return [] }
        var opcodes: [UInt8] = []
        while index + 2 <= bytes.count {
            let length = Int(bytes[index + 1] & 0x7F)
            guard length < 126, index + 2 + length <= bytes.count else { break }
            opcodes.append(bytes[index] & 0x0F)
            index += 2 + length
        }
        return opcodes
    }

    /// The code of the close frame the server sent after its head, once it has come whole.
    public var closeCode: UInt16? {
        let bytes = received.withLockedValue { $0 }
        guard var index = headEnd(bytes).map({ $0 + 4 }) else { return nil }
        while index + 2 <= bytes.count {   // the server's frames: unmasked, lengths below 126 here
            let opcode = bytes[index] & 0x0F
            let length = Int(bytes[index + 1] & 0x7F)
            guard length < 126, index + 2 + length <= bytes.count else { return nil }
            if opcode == 0x8 {
                return length >= 2 ? UInt16(bytes[index + 2]) << 8 | UInt16(bytes[index + 3]) : nil
            }
            index += 2 + length
        }
        return nil
    }

    /// Waits, up to `timeout` seconds, for the connection to close; returns whether it did.
    public func waitUntilClosed(timeout: Double = 60) async -> Bool {
        await waitUntil(timeout: timeout) { !channel.isActive }
    }

    public func close() async {
        try? await channel.close().get()
    }

    private func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<[UInt8]>
        init(received: NIOLockedValueBox<[UInt8]>) { self.received = received }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLockedValue { $0 += buffer.readableBytesView }
        }
    }
}
