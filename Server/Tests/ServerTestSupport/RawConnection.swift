import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A bare TCP connection on loopback that sends what a test writes, byte for byte, and keeps
/// what the server sends and whether it closed: for a client no library would be (a head that
/// never ends, a request line of megabytes).
public final class RawConnection: Sendable {
    private let channel: any Channel
    private let state: NIOLockedValueBox<(received: [UInt8], closed: Bool)>

    private init(channel: any Channel, state: NIOLockedValueBox<(received: [UInt8], closed: Bool)>) {
        self.channel = channel
        self.state = state
    }

    /// Connects to `port` on 127.0.0.1.
    public static func open(port: Int) async throws -> RawConnection {
        let state = NIOLockedValueBox<(received: [UInt8], closed: Bool)>(([], false))
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(state: state)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, state: state)
    }

    /// Sends `text` as it is.
    public func write(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Sends `text` as it is; a send the server refuses (it closed) is not an error here.
    public func send(_ text: String) async {
        try? await write(text)
    }

    /// Waits (up to a minute) until what was received meets `condition`; returns whether it did.
    public func wait(_ condition: (String) -> Bool) async -> Bool {
        await waitUntil { condition(received) }
    }

    /// What the server has sent so far.
    public var received: String { String(decoding: state.withLockedValue { $0.received }, as: UTF8.self) }

    /// The status line of what the server sent, once it has come.
    public var statusLine: String? {
        let text = received
        guard let end = text.range(of: "\r\n") else { return nil }
        return String(text[..<end.lowerBound])
    }

    /// Whether the connection has closed (the server closed it, or ``close()``).
    public var closed: Bool { state.withLockedValue { $0.closed } }

    /// Waits, up to `timeout` seconds, for the connection to close; returns whether it did.
    public func waitUntilClosed(timeout: Double = 60) async -> Bool {
        await waitUntil(timeout: timeout) { closed }
    }

    public func close() async {
        try? await channel.close().get()
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let state: NIOLockedValueBox<(received: [UInt8], closed: Bool)>
        init(state: NIOLockedValueBox<(received: [UInt8], closed: Bool)>) { self.state = state }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            state.withLockedValue { $0.received += buffer.readableBytesView }
        }
        func channelInactive(context: ChannelHandlerContext) {
            state.withLockedValue { $0.closed = true }
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
