import NIOCore
import NIOHTTP1
import NIOPosix

// The plain requests of the load clients (sluice-fanout-load, sluice-stampede): one request on a
// connection of its own to an instance on loopback.

/// Why a load client's step failed.
package enum LoadError: Error, CustomStringConvertible {
    case status(UInt, String)
    case closed
    case timedOut(String)
    case setup(String)

    package var description: String {
        switch self {
        case .status(let code, let body): "the server answered \(code) \(body.prefix(200))"
        case .closed: "the connection closed"
        case .timedOut(let what): "timed out: \(what)"
        case .setup(let what): what
        }
    }
}

// MARK: Plain requests

/// One request on a connection of its own (`Connection: close`): the status and the body.
final class OneRequest: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let head: HTTPRequestHead
    let body: ByteBuffer?
    let promise: EventLoopPromise<(UInt, String)>
    private var status: UInt = 0
    private var text = ""

    init(head: HTTPRequestHead, body: ByteBuffer?, promise: EventLoopPromise<(UInt, String)>) {
        self.head = head
        self.body = body
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = head.status.code
        case .body(let buffer): text += String(buffer: buffer)
        case .end:
            promise.succeed((status, text))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(LoadError.closed)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}

/// `method uri` to the instance on loopback `port`, with `body` and `headers`: its status and body,
/// or a failure (refused, closed, no answer within `timeout`).
package func send(_ method: HTTPMethod, _ uri: String, port: Int, body: String? = nil, headers: [(String, String)] = [],
          timeout: TimeAmount = .seconds(10), on loop: any EventLoop) -> EventLoopFuture<(status: UInt, body: String)> {
    var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
    head.headers.add(name: "Host", value: "127.0.0.1")
    head.headers.add(name: "Content-Length", value: "\(body?.utf8.count ?? 0)")
    head.headers.add(name: "Connection", value: "close")
    for (name, value) in headers { head.headers.add(name: name, value: value) }
    let promise = loop.makePromise(of: (UInt, String).self)
    let requestHead = head
    let requestBody = body.map { ByteBuffer(string: $0) }
    let channel = ClientBootstrap(group: loop)
        .connectTimeout(.seconds(5))
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                try channel.pipeline.syncOperations.addHandler(OneRequest(head: requestHead, body: requestBody, promise: promise))
            }
        }
        .connect(host: "127.0.0.1", port: port)
    channel.cascadeFailure(to: promise)
    let timer = loop.scheduleTask(in: timeout) {
        promise.fail(LoadError.timedOut("\(method) \(uri) on port \(port)"))
        channel.whenSuccess { $0.close(promise: nil) }
    }
    return promise.futureResult.always { _ in timer.cancel() }.map { (status: $0.0, body: $0.1) }
}
