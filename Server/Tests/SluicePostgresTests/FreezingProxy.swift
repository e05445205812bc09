import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on loopback to a target port that can **freeze** the connections it carries: after
/// ``freeze()`` they stay open but nothing crosses them either way — what a client sees of a
/// connection a NAT or a load balancer dropped without a word (half-open). Connections made after
/// the freeze are carried normally. It can also **drop** them (``dropAll()``), and pick each new
/// connection's target as it comes: a load balancer moving its clients between instances. And it
/// can **partition** its clients from the target: every connection frozen, new ones closed at once,
/// until ``heal()``.
final class FreezingProxy: Sendable {
    let port: Int
    private let server: any Channel
    private let pairs = NIOLockedValueBox<[Glue]>([])
    /// The target of each connection carried so far, in order.
    private let targets = NIOLockedValueBox<[Int]>([])
    /// Whether new connections are closed at once (partitioned).
    private let refusing = NIOLockedValueBox(false)

    /// A proxy to `target` on port `requested` (0: one the system picks).
    convenience init(target: Int, port requested: Int = 0) async throws {
        try await self.init(port: requested) { target }
    }

    /// A proxy on port `requested` (0: one the system picks) that carries each new connection to
    /// the port `target` gives at that moment.
    init(port requested: Int = 0, target: @escaping @Sendable () -> Int) async throws {
        let (pairs, targets, refusing) = (pairs, targets, refusing)
        server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                if refusing.withLockedValue({ $0 }) { return inbound.close() }
                let glue = Glue()
                let port = target()
                pairs.withLockedValue { $0.append(glue) }
                targets.withLockedValue { $0.append(port) }
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in outbound.pipeline.addHandler(GlueHandler(glue: glue, side: .server)) }
                    .connect(host: "127.0.0.1", port: port)
                    .flatMap { outbound in
                        glue.server = outbound
                        glue.client = inbound
                        // The accepted channel starts reading once this future completes, with the glue in place.
                        return inbound.pipeline.addHandler(GlueHandler(glue: glue, side: .client))
                    }
            }
            .bind(host: "127.0.0.1", port: requested).get()
        port = server.localAddress!.port!
    }

    /// Stops every connection carried so far from passing anything, without closing it.
    func freeze() {
        pairs.withLockedValue { $0.forEach { $0.frozen.withLockedValue { $0 = true } } }
    }

    /// Stops every connection carried so far from passing the server's answers, while what the
    /// client sends still reaches the server: a statement is run and committed, and its answer
    /// lost — what a client sees of a connection that died right after `COMMIT`.
    func freezeAnswers() {
        pairs.withLockedValue { $0.forEach { $0.answersFrozen.withLockedValue { $0 = true } } }
    }

    /// Cuts the clients off from the target: every connection carried so far frozen, every new
    /// one closed as soon as it is accepted, until ``heal()``.
    func partition() {
        refusing.withLockedValue { $0 = true }
        freeze()
    }

    /// Carries new connections again (the frozen ones stay frozen).
    func heal() {
        refusing.withLockedValue { $0 = false }
    }

    /// Closes every connection carried so far, on both sides: each client connects again, and is
    /// carried to the target of that moment.
    func dropAll() {
        for glue in pairs.withLockedValue({ $0 }) {
            glue.client?.close(promise: nil)
            glue.server?.close(promise: nil)
        }
    }

    /// The target of each connection carried so far, in order.
    var connectionTargets: [Int] { targets.withLockedValue { $0 } }

    /// How many of the connections made to the proxy are still open on the client's side.
    var openConnections: Int {
        pairs.withLockedValue { $0.filter { $0.client?.isActive == true }.count }
    }

    func close() async {
        try? await server.close()
        for glue in pairs.withLockedValue({ $0 }) {
            try? await glue.client?.close()
            try? await glue.server?.close()
        }
    }

    final class Glue: @unchecked Sendable {   // the channels are set once, on their event loop, before use
        var client: (any Channel)?
        var server: (any Channel)?
        let frozen = NIOLockedValueBox(false)
        let answersFrozen = NIOLockedValueBox(false)
    }

    final class GlueHandler: ChannelDuplexHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundIn = ByteBuffer
        enum Side { case client, server }
        let glue: Glue
        let side: Side

        init(glue: Glue, side: Side) {
            self.glue = glue
            self.side = side
        }

        private var peer: (any Channel)? { side == .client ? glue.server : glue.client }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !glue.frozen.withLockedValue({ $0 }) else { return }   // swallowed: the peer never hears it
            if side == .server, glue.answersFrozen.withLockedValue({ $0 }) { return }
            peer?.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            if !glue.frozen.withLockedValue({ $0 }) { peer?.close(promise: nil) }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
