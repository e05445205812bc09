#if Hummingbird
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import SluiceFeed

/// Tells a connection's `ConnectionGuard` when a request and its response have both ended (the
/// connection is then idle until its next request) and when a response switches protocols. It sits
/// after the HTTP codec and passes everything on.
final class RequestCycleWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var guardHandler: ConnectionGuard?
    private var requestEnded = false
    private var responseEnded = false

    func handlerAdded(context: ChannelHandlerContext) {
        guardHandler = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guardHandler = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: (requestEnded, responseEnded) = (false, false)
        case .body: break
        case .end:
            requestEnded = true
            if responseEnded { guardHandler?.requestCycleEnded() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response) where response.status == .switchingProtocols:
            guardHandler?.upgraded()
        case .head, .body: break
        case .end:
            responseEnded = true
            if requestEnded { guardHandler?.requestCycleEnded() }
        }
        context.write(data, promise: promise)
    }
}
#endif
