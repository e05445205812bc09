#if Hummingbird
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

extension HTTPServerBuilder {
    /// HTTP/1 in which a connection whose first request is a `GET` of one of `routes` is served
    /// its Server-Sent Events from its event loop, with no Swift task kept for it; every other
    /// connection is Hummingbird's HTTP/1, with `configuration`.
    ///
    /// ```swift
    /// let app = Application(router: router,
    ///                       server: .eventStreams([.topics(streams, under: "events")]))
    /// ```
    ///
    /// An idle stream then costs the server under a sixth of the memory it costs in a response
    /// body's task (no task, its async frames, or Hummingbird's per-connection state), and each
    /// event goes from the feed to the socket with no task switch. Keep the routes in the router
    /// too: a connection that asks for something else first is served by it throughout.
    /// `configuration`'s additional channel handlers are a stream connection's too (after its HTTP
    /// decoding).
    public static func eventStreams(_ routes: [EventStreamRoute], configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        eventStreams(routes, additionalChannelHandlers: configuration.additionalChannelHandlers()) {
            HTTP1Channel(responder: $0, configuration: configuration)
        }
    }

    /// `routes` served from the event loop as in ``eventStreams(_:configuration:)``, with
    /// `additionalChannelHandlers` in each stream connection's pipeline after its HTTP decoding;
    /// every other connection is the child channel `otherwise` makes (`HTTP1WebSocketUpgradeChannel`,
    /// say).
    public static func eventStreams<Other: ServerChildChannel>(
        _ routes: [EventStreamRoute],
        additionalChannelHandlers: @autoclosure @escaping @Sendable () -> [any RemovableChannelHandler] = [],
        otherwise: @escaping @Sendable (@escaping HTTPChannelHandler.Responder) throws -> Other
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            EventStreamChannel(routes: routes, additionalChannelHandlers: additionalChannelHandlers,
                               other: try otherwise(responder), streams: LoopStreamRegistry())
        }
    }
}

/// A connection sorted by its first request: a stream of ``EventStreamRoute``s is served on the
/// event loop (`EventStreamHandler`), and its task ends; anything else is `Other`'s.
public struct EventStreamChannel<Other: ServerChildChannel>: ServerChildChannel {
    /// A connection, and what `Other` made of it once its first request was not a stream's
    /// (`nil`: it was, or the connection closed first).
    public struct Value: ServerChildChannelValue {
        /// The connection.
        public let channel: any Channel
        let other: EventLoopFuture<Other.Value?>
    }

    let routes: [EventStreamRoute]
    let additionalChannelHandlers: @Sendable () -> [any RemovableChannelHandler]
    let other: Other
    let streams: LoopStreamRegistry

    /// How a connection reads until its first request is sorted: into buffers of 512 bytes at
    /// first (NIO's default starts at 2,048), growing as NIO's default does. The receive buffer
    /// that a connection keeps for its next read is then a stream's only for as long as it is idle;
    /// a connection handed to `Other` gets its reading back as it was.
    static var firstRequestReading: AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
    }

    /// Puts the sorter first in the connection's pipeline, reading with ``firstRequestReading``.
    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let sorted = channel.eventLoop.makePromise(of: Other.Value?.self)
            let reading = try channel.syncOptions?.getOption(ChannelOptions.recvAllocator)
            if reading != nil { try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.firstRequestReading) }
            try channel.pipeline.syncOperations.addHandler(
                FirstRequestSorter(channel: self, logger: logger, sorted: sorted, otherReading: reading))
            return Value(channel: channel, other: sorted.futureResult)
        }
    }

    /// Returns once the first request is a stream's (unless this task is to watch the streams:
    /// `LoopStreamRegistry.watch()`); otherwise hands the connection to `Other`.
    public func handle(value: Value, logger: Logger) async {
        guard let sorted = try? await value.other.get() else { return await streams.watch() }
        await other.handle(value: sorted, logger: logger)
    }
}

/// The first handler of a connection: reads until the first request line, then sets the pipeline
/// up for what it asks — an event stream, or the other child channel — hands it the bytes read,
/// and leaves.
final class FirstRequestSorter<Other: ServerChildChannel>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The longest request line looked at: a longer one goes to the other channel.
    static var longestLine: Int { 8_192 }

    private let channel: EventStreamChannel<Other>
    private var routes: [EventStreamRoute] { channel.routes }
    private var other: Other { channel.other }
    private var streams: LoopStreamRegistry { channel.streams }
    private let logger: Logger
    private let sorted: EventLoopPromise<Other.Value?>
    /// How the connection read before the sorter's own reading, given back to it for `Other`.
    private let otherReading: (any RecvByteBufferAllocator)?
    private var received: ByteBuffer?
    private var stage = Stage.reading
    private var answered = false

    private enum Stage {
        /// Reading the request line.
        case reading
        /// The other channel is being set up: what comes is kept behind what was read.
        case settingUp
        /// Handed over: what comes goes on.
        case handedOver
    }

    init(channel: EventStreamChannel<Other>, logger: Logger, sorted: EventLoopPromise<Other.Value?>,
         otherReading: (any RecvByteBufferAllocator)? = nil) {
        self.channel = channel
        self.logger = logger
        self.sorted = sorted
        self.otherReading = otherReading
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard stage != .handedOver else { return context.fireChannelRead(data) }
        if received == nil { received = bytes } else { received!.writeBuffer(&bytes) }
        guard stage == .reading else { return }
        switch FirstRequestLine(of: received!) {
        case .incomplete:
            if received!.readableBytes > Self.longestLine { handOverToOther(context: context) }
        case .get(let path):
            for route in routes {
                if let topic = route.topic(path) { return handOverToStream(context: context, route: route, topic: topic) }
            }
            handOverToOther(context: context)
        case .other:
            handOverToOther(context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if stage == .handedOver { context.fireChannelReadComplete() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        answer(nil)
        context.fireChannelInactive()
    }

    /// The peer closed its side before its first request was whole: nothing to serve.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard stage == .reading, case .inputClosed? = event as? ChannelEvent else { return context.fireUserInboundEventTriggered(event) }
        answer(nil)
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard stage == .reading else { return context.fireErrorCaught(error) }
        answer(nil)
        context.close(promise: nil)
    }

    /// Tells the connection's task what it is to handle (`nil`: nothing), once.
    private func answer(_ value: Other.Value?) {
        guard !answered else { return }
        answered = true
        sorted.succeed(value)
    }

    private func handOverToStream(context: ChannelHandlerContext, route: EventStreamRoute, topic: String) {
        let stream = EventStreamHandler(route: route, topic: topic, streams: streams, eventLoop: context.eventLoop, logger: logger)
        do {
            let pipeline = context.pipeline.syncOperations
            // The request is read as HTTP; the answer is written as bytes (EventStreamHandler).
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandlers(channel.additionalChannelHandlers())
            try pipeline.addHandler(stream)
            guard streams.add(stream) else {   // the server is shutting down
                answer(nil)
                return context.close(promise: nil)
            }
        } catch {
            logger.error("event stream connection setup failed", metadata: ["error": "\(error)"])
            answer(nil)
            return context.close(promise: nil)
        }
        answer(nil)
        forwardAndLeave(context: context)
    }

    private func handOverToOther(context: ChannelHandlerContext) {
        stage = .settingUp
        if let otherReading { try? context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: otherReading) }
        other.setup(channel: context.channel, logger: logger).hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let value):
                self.answer(value)
                self.forwardAndLeave(context: context)
            case .failure(let error):
                self.logger.error("connection setup failed", metadata: ["error": "\(error)"])
                self.answer(nil)
                context.close(promise: nil)
            }
        }
    }

    /// Passes what was read to the handlers now after this one, and leaves the pipeline.
    private func forwardAndLeave(context: ChannelHandlerContext) {
        stage = .handedOver
        if let received {
            self.received = nil
            context.fireChannelRead(wrapInboundOut(received))
            context.fireChannelReadComplete()
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// What a connection's first request line asks for: read by `FirstRequestSorter` from the bytes
/// received so far, whatever they are.
enum FirstRequestLine: Equatable {
    /// Its end has not been read yet.
    case incomplete
    /// A `GET` of this path (the target without its query).
    case get(path: Substring)
    /// Anything else.
    case other

    /// The request line at the start of `bytes`.
    init(of bytes: ByteBuffer) {
        let view = bytes.readableBytesView
        guard let end = view.firstIndex(of: UInt8(ascii: "\n")) else {
            self = .incomplete
            return
        }
        let line = String(decoding: view[view.startIndex..<end], as: UTF8.self)
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "GET", parts[1].hasPrefix("/") else {
            self = .other
            return
        }
        let target = parts[1]
        self = .get(path: target[..<(target.firstIndex(of: "?") ?? target.endIndex)])
    }
}
#endif
