#if Hummingbird
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import SluiceFeed

/// Serves one connection's event stream from its event loop: answers its request through the
/// route (authorization and the feed's lookup run in a task that ends with the answer), takes the
/// request's HTTP handlers out of the pipeline, writes the response head, then writes what the
/// client's `ClientOutlet` hands over straight to the socket — the body delimited by the
/// connection's close (`Connection: close`), so each event is its frame's bytes, shared by every
/// client, and nothing more.
///
/// The same stream as a response body's: `retry:`, events, heartbeats, `dropped`, `reset`,
/// `shutdown`, with the client's window and policy. Demand follows the socket: the events of a
/// batch are requested again once it is written and the channel is writable (NIO's write-buffer
/// watermarks), so a slow socket leaves events in the client's buffer, where its policy applies.
/// The connection closing ends the client at once; the stream ending (the feed finished, the
/// client disconnected by its policy or its shutdown grace) closes the connection.
final class EventStreamHandler: ChannelInboundHandler, OutletLoopWriter, @unchecked Sendable {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = ByteBuffer

    private let route: EventStreamRoute
    private let topic: String
    private let streams: LoopStreamRegistry
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let wakeups: LoopWakeups
    // On the event loop only:
    private var context: ChannelHandlerContext?
    private var requested = false
    /// The request's HTTP handlers have left: what is read now is bytes, ignored.
    private var answering = false
    private var outlet: ClientOutlet?
    private var source: (any LoopStream)?
    /// Events written while the channel was not writable, requested again once it is.
    private var owed = 0
    private var closing = false
    /// The server is shutting down: a stream not begun yet is not begun.
    private var shuttingDown = false

    init(route: EventStreamRoute, topic: String, streams: LoopStreamRegistry, eventLoop: any EventLoop, logger: Logger) {
        self.logger = logger
        self.route = route
        self.topic = topic
        self.streams = streams
        self.eventLoop = eventLoop
        wakeups = streams.wakeups(on: eventLoop)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answering, case .head(let head) = unwrapInboundIn(data), !requested else { return }   // one request a connection
        requested = true
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let route = route, topic = topic, channel = context.channel, logger = logger
        context.eventLoop.makeFutureWithTask { await route.answer(request, topic, ApplicationRequestContextSource(channel: channel, logger: logger)) }
            .assumeIsolated().whenSuccess { answer in self.begin(answer) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        outlet?.ended(by: FeedStreamStop.peerClosed)
        outlet = nil
        streams.remove(self)
        context.fireChannelInactive()
    }

    /// The peer closed its side (Hummingbird's connections allow half-closure, so this comes
    /// instead of the connection's close): the client has gone.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { close(because: FeedStreamStop.peerClosed) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, owed > 0, let outlet {
            let count = owed
            owed = 0
            outlet.request(count)
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        close(because: error)
    }

    // MARK: The stream

    private func begin(_ answer: LoopStreamAnswer) {
        guard let context, !closing, context.channel.isActive else { return }
        if shuttingDown, case .stream = answer { return close(because: FeedStreamStop.cancelled) }
        do {
            try removeRequestHandlers(context: context)
        } catch {
            return close(because: error)
        }
        switch answer {
        case .refused(let refusal):
            closing = true
            context.writeAndFlush(wrapOutboundOut(refusal.bytes(date: HTTPDate.now))).assumeIsolated()
                .whenComplete { _ in context.close(promise: nil) }
        case .stream(let source, let headers):
            self.source = source
            let outlet = source.connect(on: context.eventLoop)
            self.outlet = outlet
            context.write(wrapOutboundOut(eventStreamHead(date: HTTPDate.now, headers: headers)), promise: nil)
            if let preamble = source.preamble { context.write(wrapOutboundOut(preamble), promise: nil) }
            context.flush()
            drain()
        }
    }

    /// Takes the request's decoder and its HTTP types' codec out of the pipeline: from here on this
    /// handler writes bytes, and what the client sends is not read as requests.
    private func removeRequestHandlers(context: ChannelHandlerContext) throws {
        answering = true
        let pipeline = context.pipeline.syncOperations
        pipeline.removeHandler(context: try pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self), promise: nil)
        pipeline.removeHandler(context: try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self), promise: nil)
    }

    /// Writes `first` (the step the outlet woke this writer with) and every step the outlet has
    /// ready, then flushes; the outlet wakes this writer when it has more.
    func drain(first: ClientOutlet.Step? = nil) {
        guard let context, let outlet, let source else { return }
        var wrote = false
        defer { if wrote, !closing { context.flush() } }
        var next = first ?? outlet.poll(self)
        while !closing, let step = next {
            switch step {
            case .write(let messages):
                if let bytes = source.bytes(of: messages) {
                    context.write(wrapOutboundOut(bytes), promise: nil)
                    wrote = true
                }
                if context.channel.isWritable {
                    outlet.wrote(messages)
                } else {
                    owed += messages.count
                    outlet.wrote(messages, requestingMore: false)
                }
            case .nudge:
                break
            case .heartbeat:
                context.write(wrapOutboundOut(heartbeatComment), promise: nil)
                wrote = true
            case .finish:
                closing = true
                outlet.ended(by: nil)
                self.outlet = nil
                // The body ends with the connection: closed once everything written has gone, or
                // after the shutdown grace if the client does not take it.
                let cutOff = context.eventLoop.assumeIsolated().scheduleTask(in: source.shutdownGrace) { context.close(promise: nil) }
                context.writeAndFlush(wrapOutboundOut(ByteBuffer())).assumeIsolated().whenComplete { _ in
                    cutOff.cancel()
                    context.close(promise: nil)
                }
            case .stop(let reason):
                close(because: reason)
            }
            next = closing ? nil : outlet.poll(self)
        }
    }

    /// Ends the stream at once, for `reason`, and closes the connection.
    private func close(because reason: any Error) {
        guard !closing else { return }
        closing = true
        outlet?.ended(by: reason)
        outlet = nil
        context?.close(promise: nil)
    }

    // MARK: From other threads

    /// The server shuts down: what is buffered, `event: shutdown`, the end (or, after the grace
    /// period, the connection closed); a stream not begun yet is closed.
    func shutDown() {
        eventLoop.execute {
            self.shuttingDown = true
            if let outlet = self.outlet {
                outlet.shutDown()
            } else if !self.requested {
                self.close(because: FeedStreamStop.cancelled)
            }   // else the stream is closed as its answer comes
        }
    }

    /// Closes the connection at once.
    func closeNow() {
        eventLoop.execute { self.close(because: FeedStreamStop.cancelled) }
    }

    // MARK: OutletLoopWriter

    func outletWoke(with step: ClientOutlet.Step?) {
        wakeups.wake(self, with: step)
    }
}
#endif
