#if Server
import NIOCore

/// The first handler of a connection: a ``ConnectionGate`` admits it or answers `503`, and its
/// request heads are held to the gate's limits as their bytes arrive — a head too slow (`408`), a
/// request line or head too long (`414`, `431`), a kept-alive connection idle too long (closed).
/// It looks at bytes only until a head is whole; a request being served (a stream, say) passes
/// untouched. The HTTP layer behind it says when a request and its response have ended
/// (``requestCycleEnded()``) or the connection changed protocol (``upgraded()``).
package final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private let gate: ConnectionGate
    private var limits: ConnectionLimits { gate.limits }
    private var context: ChannelHandlerContext?
    private var address: String?
    private var admitted = false
    private var stage = Stage.opening
    private var timer: Scheduled<Void>?

    private enum Stage {
        /// Not yet active.
        case opening
        /// Reading a request head.
        case readingHead(RequestHeadScanner)
        /// A request is being served: bytes pass.
        case serving
        /// Between requests on a kept-alive connection.
        case idle
        /// Another protocol now (a WebSocket): bytes pass, no limit applies.
        case upgraded
        /// Answered and closing: what arrives is dropped.
        case closing
    }

    /// A guard of one connection, admitted and held to its limits by `gate`.
    package init(gate: ConnectionGate) {
        self.gate = gate
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { opened(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if admitted {
            admitted = false
            gate.release(address)
        }
        self.context = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        stage = .closing
        if admitted {
            admitted = false
            gate.release(address)
        }
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch stage {
        case .serving, .upgraded, .opening:
            context.fireChannelRead(data)
        case .closing:
            break
        case .idle:
            stage = .readingHead(newScanner())
            arm(limits.headTimeout, for: .headTimeout, context: context)
            channelRead(context: context, data: data)
        case .readingHead(var scanner):
            let bytes = unwrapInboundIn(data)
            switch scanner.scan(bytes.readableBytesView) {
            case .incomplete:
                stage = .readingHead(scanner)
                context.fireChannelRead(data)
            case .complete:
                stage = .serving
                disarm()
                context.fireChannelRead(data)
            case .lineTooLong:
                refuse(.requestLineTooLong, context: context)
            case .headTooLarge:
                refuse(.headTooLarge, context: context)
            }
        }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .closing = stage, case .inputClosed? = event as? ChannelEvent {
            return context.close(promise: nil)   // the peer has read the answer and gone
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The request being served and its response have both ended: the connection waits for the
    /// next, idle.
    package func requestCycleEnded() {
        guard case .serving = stage, let context else { return }
        stage = .idle
        arm(limits.idleTimeout, for: .idle, context: context)
    }

    /// The connection carries another protocol from now on: nothing more is looked at.
    package func upgraded() {
        guard case .serving = stage else { return }
        stage = .upgraded
        disarm()
    }

    private func newScanner() -> RequestHeadScanner {
        RequestHeadScanner(maximumLine: limits.maximumRequestLine, maximumHead: limits.maximumHead)
    }

    private func opened(context: ChannelHandlerContext) {
        guard case .opening = stage else { return }
        address = context.channel.remoteAddress?.ipAddress
        if let reason = gate.admit(address) { return answer(reason, context: context) }
        admitted = true
        stage = .readingHead(newScanner())
        arm(limits.headTimeout, for: .headTimeout, context: context)
    }

    /// Closes the connection for `reason` once `limit` has passed (none: never).
    private func arm(_ limit: TimeAmount?, for reason: ConnectionGate.Reason, context: ChannelHandlerContext) {
        disarm()
        guard let limit else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: limit) { [self] in
            timer = nil
            guard let context = self.context else { return }
            switch (stage, reason) {
            case (.readingHead, .headTimeout): refuse(.headTimeout, context: context)
            case (.idle, .idle): refuse(.idle, context: context)
            default: break
            }
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }

    /// An admitted connection is closed by its limits: counted, logged, answered.
    private func refuse(_ reason: ConnectionGate.Reason, context: ChannelHandlerContext) {
        gate.closing(reason, address: address)
        answer(reason, context: context)
    }

    /// Writes `reason`'s status, if it has one, then closes: the output at once, the input when
    /// the peer closes its side or a second later, so that a client still sending reads the
    /// answer rather than a reset.
    private func answer(_ reason: ConnectionGate.Reason, context: ChannelHandlerContext) {
        disarm()
        stage = .closing
        guard let status = reason.status else { return context.close(promise: nil) }
        let body = "\(status.phrase)\n"
        var head = "HTTP/1.1 \(status.code) \(status.phrase)\r\nContent-Type: text/plain; charset=utf-8\r\n"
        head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n"
        if reason == .full || reason == .addressFull { head += "Retry-After: 1\r\n" }
        let bytes = context.channel.allocator.buffer(string: head + "\r\n" + body)
        context.writeAndFlush(wrapInboundOut(bytes), promise: nil)
        context.close(mode: .output, promise: nil)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { [self] in
            timer = nil
            self.context?.close(promise: nil)
        }
    }
}
#endif
