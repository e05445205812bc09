import NIOCore

/// Sets its connection's write-buffer water marks (`--write-buffer`) when it joins the pipeline:
/// the channel stops being writable once `highWaterMark` bytes wait to be written, and the
/// engine's writer waits from there, as it would at NIO's default of 64 KiB.
final class WriteBufferLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    let highWaterMark: Int

    init(highWaterMark: Int) { self.highWaterMark = highWaterMark }

    func handlerAdded(context: ChannelHandlerContext) {
        let marks = ChannelOptions.Types.WriteBufferWaterMark(low: highWaterMark / 2, high: highWaterMark)
        guard let options = context.channel.syncOptions else {
            preconditionFailure("a connection's channel takes its options synchronously on its loop")
        }
        do {
            try options.setOption(ChannelOptions.writeBufferWaterMark, value: marks)
        } catch {
            context.fireErrorCaught(error)
        }
    }
}
