#if Hummingbird
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import SluiceFeed

/// Serves one connection's event stream from its event loop: answers its request through the
/// route (authorization and the feed's lookup run in a task that ends with the answer), then
/// writes what the client's `ClientOutlet` hands over, straight into the pipeline.
///
/// The same stream as a response body's: `retry:`, events, heartbeats, `dropped`, `reset`,
/// `shutdown`, with the client's window and policy. Demand follows the socket: the events of a
/// batch are requested again once it is written and the channel is writable (NIO's write-buffer
/// watermarks), so a slow socket leaves events in the client's buffer, where its policy applies.
/// The connection closing ends the client at once; the stream ending (the feed finished, the
/// client disconnected by its policy or its shutdown grace) closes the connection.
final class EventStreamHandler: ChannelInboundHandler, OutletLoopWriter, @unchecked Sendable {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let route: EventStreamRoute
    private let topic: String
    private let streams: LoopStreamRegistry
    private let eventLoop: any EventLoop
    private let wakeups: LoopWakeups
    // On the event loop only:
    private var context: ChannelHandlerContext?
    private var requested = false
    private var outlet: ClientOutlet?
    private var source: (any LoopStream)?
    /// Events written while the channel was not writable, requested again once it is.
    private var owed = 0
    private var closing = false
    /// The server is shutting down: a stream not begun yet is not begun.
    private var shuttingDown = false

    init(route: EventStreamRoute, topic: String, streams: LoopStreamRegistry, eventLoop: any EventLoop) {
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
        guard case .head(let head) = unwrapInboundIn(data), !requested else { return }   // one request a connection
        requested = true
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let route = route, topic = topic
        context.eventLoop.makeFutureWithTask { await route.answer(request, topic) }
            .assumeIsolated().whenSuccess { answer in self.begin(answer) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        outlet?.ended(by: FeedStreamStop.peerClosed)
        outlet = nil
        streams.remove(self)
        context.fireChannelInactive()
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
        switch answer {
        case .refused(let refusal):
            closing = true
            context.write(wrapOutboundOut(.head(refusal.head)), promise: nil)
            context.write(wrapOutboundOut(.body(ByteBuffer(string: refusal.text))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .stream(let source):
            self.source = source
            let outlet = source.connect(on: context.eventLoop)
            self.outlet = outlet
            context.write(wrapOutboundOut(.head(eventStreamHead)), promise: nil)
            if let preamble = source.preamble { context.write(wrapOutboundOut(.body(preamble)), promise: nil) }
            context.flush()
            drain()
        }
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
                    context.write(wrapOutboundOut(.body(bytes)), promise: nil)
                    wrote = true
                }
                if context.channel.isWritable {
                    outlet.wrote(messages)
                } else {
                    owed += messages.count
                    outlet.wrote(messages, requestingMore: false)
                }
            case .heartbeat:
                context.write(wrapOutboundOut(.body(heartbeatComment)), promise: nil)
                wrote = true
            case .finish:
                closing = true
                outlet.ended(by: nil)
                self.outlet = nil
                context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
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
