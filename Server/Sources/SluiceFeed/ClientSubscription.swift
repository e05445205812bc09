#if Server
import Sluice
import Synchronization

/// Where one client's messages go: ``FeedClient``'s subscriber (through ``TypedClientSink``) or
/// a socket's ``ClientOutlet``. The calls are a subscriber's, without the value's type.
package protocol ClientSink: AnyObject, Sendable {
    func receive(subscription: ClientSubscription)
    func receive(_ message: ClientMessage) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<FeedClientFailure>)
    /// The stream begins to finish (the feed finished, or a graceful shutdown of this stream),
    /// before the last message is delivered: a socket writer bounds how long it waits for a
    /// stalled client from here.
    func feedIsFinishing()
    /// Whether the client has gone before its subscription began (its connection closed while it
    /// waited for the history): nothing more is read for it.
    var hasLeft: Bool { get }
}

/// A client of a feed: a member of the feed's ``FeedRoster``, offered every live event (the feed
/// never waits), and the subscription of the client's own subscriber, with a ``ClientBuffer``
/// between them behind a lock. Deliveries run outside the lock, one thread at a time (a message that
/// arrives during a delivery is left to the delivering thread) — except to a socket's
/// ``ClientOutlet``, which only queues what it is given: while no delivery is under way, the
/// messages the client has demand for are handed to it under this lock, in the same critical
/// section that buffered the event (or added the demand), so an event costs the client this lock
/// and the outlet's, once each.
package final class ClientSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    // A connection keeps a client for each topic it follows: the fields are laid out to fill
    // their words, and the rare ones are boxed (241 bytes with the object's header, measured on
    // Linux x86_64: the allocator's 256-byte class).
    private struct State {
        var buffer: ClientBuffer
        var attached = false
        var delivering = false
        /// Whether the downstream is a socket's outlet: messages go to it under the lock.
        let handsOver: Bool
        var downstream: (any ClientSink)?
        /// Boxed: eight bytes in every client's state, where the failure takes seventeen.
        private var failed: FailureBox?

        init(buffer: ClientBuffer, downstream: any ClientSink) {
            self.buffer = buffer
            handsOver = downstream is ClientOutlet
            self.downstream = downstream
        }

        /// Why the stream is to fail, once it is.
        var failure: FeedClientFailure? {
            get { failed?.failure }
            set { failed = newValue.map(FailureBox.init) }
        }

        /// Hands what the client has demand for straight to its outlet, if it has one and no
        /// delivery is under way (ordering: a delivering thread would be behind these messages);
        /// `nil` when the delivery role is needed instead. The outlet's lock nests inside this one;
        /// the outlet calls nothing back. When the last message was the shutdown, ``claim()``
        /// must follow (the completion is delivered outside the lock).
        mutating func handOver() -> HandOver? {
            guard handsOver, attached, !delivering, failed == nil, let downstream else { return nil }
            let outlet = unsafeDowncast(downstream, to: ClientOutlet.self)
            var handed = HandOver()
            handed.wake = outlet.append {
                guard let message = buffer.next() else { return nil }
                switch message {
                case .event: handed.events += 1
                case .dropped(let count, _): handed.dropsNoticed.append(count)
                case .reset, .shutdown: break
                }
                return message
            }
            handed.completes = buffer.shutdownDelivered
            return handed
        }

        /// Takes the delivery role if it is free and there is something to do: the first step.
        mutating func claim() -> Step? {
            guard attached, !delivering, downstream != nil else { return nil }
            delivering = true
            return step()
        }

        /// The delivering thread's next step; gives the role up when there is nothing to do.
        mutating func step() -> Step {
            guard let downstream else {
                delivering = false
                return .stop
            }
            if let failure {
                self.downstream = nil
                delivering = false
                return .complete(downstream, .failure(failure))
            }
            if let message = buffer.next() {
                return .deliver(downstream, message)
            }
            if buffer.shutdownDelivered {
                self.downstream = nil
                delivering = false
                return .complete(downstream, .finished)
            }
            delivering = false
            return .stop
        }
    }

    /// What ``State/handOver()`` gave the outlet: to count, and the writer to wake, once the
    /// lock is released.
    private struct HandOver {
        var events = 0
        var dropsNoticed: [Int] = []   // each `dropped` message's count (rare: empty, no allocation)
        var wake: ClientOutlet.Wake?
        var completes = false
    }

    private enum Step {
        case stop
        case deliver(any ClientSink, ClientMessage)
        case complete(any ClientSink, Subscribers.Completion<FeedClientFailure>)
    }

    private let counters: FeedCounters
    /// The client's feed, which it keeps alive: told of joins, leaves and drops, asked why it
    /// finished. (A reference, not two closures over the feed: two allocations fewer per client.)
    private let feed: any FeedOfClients

    /// The index of the client's topic among its connection's (0 for a connection of one feed).
    package let topic: Int32

    /// The client's place in its feed's ``FeedRoster`` (-1: not a member); only the roster, under
    /// its lock, reads and writes it.
    @exclusivity(unchecked) var rosterSlot: Int32 = -1

    private let state: Mutex<State>

    /// Whether the client counts: an admitted client joins at ``start(_:)`` and leaves (and gives
    /// its place back) once; a refused one is only told.
    private let counted: Bool

    init<Output>(feed: EventFeed<Output>, seat: ClientSeat, downstream: any ClientSink, counted: Bool = true) {
        counters = feed.counters
        topic = seat.topic
        self.counted = counted
        self.feed = feed
        let buffer = seat.connection.map { ClientBuffer(topic: seat.topic, of: $0) }
            ?? ClientBuffer(policy: seat.policy, byteLimit: feed.options.bufferBytes)
        state = Mutex(State(buffer: buffer, downstream: downstream))
    }

    package var description: String { "EventFeed.Client" }

    /// Sets where the client starts (it is attached to the feed's live events by now) and counts it
    /// as connected: every event published from here on reaches it.
    func start(_ start: FeedStart) {
        state.withLock(of: self) {
            $0.buffer.start(replay: start.replay, reset: start.reset, serial: start.serial, epoch: start.epoch,
                            startAfter: start.startAfter)
        }
        guard counted else { return }
        counters.clientJoined()
        if case .some(let missed) = start.reset { counters.reset(missed: missed) }
        feed.changed()
    }

    /// Ends the client's stream with `failure` before it began (its resumption could not be read).
    func fail(_ failure: FeedClientFailure) {
        state.withLock(of: self) { $0.failure = failure }
        attached()
    }

    /// The downstream has its subscription: deliveries may begin.
    func attached() {
        let first = state.withLock(of: self) { state -> Step? in
            state.attached = true
            return state.claim()
        }
        if let first { deliver(from: first) }
    }

    // MARK: From the feed

    /// A live event, from the feed's roster. One lock per event: the event is offered to the
    /// buffer and, if nobody is delivering, handed over to a socket's outlet, or the first message
    /// to deliver is taken with it.
    func offer(_ event: FeedEvent) {
        let (admission, first, handed) = state.withLock(of: self) { state -> (ClientBuffer.Admission, Step?, HandOver?) in
            guard state.downstream != nil else { return (.closed, nil, nil) }
            let admission = state.buffer.offer(event)
            if case .overflow = admission { state.failure = .fellBehind(buffered: state.buffer.policy.bufferSize) }
            if let handed = state.handOver() { return (admission, nil, handed) }
            return (admission, state.claim(), nil)
        }
        switch admission {
        case .buffered, .duplicate, .closed:
            break
        case .droppedOldest(let count):
            counters.eventsDropped(count)
            feed.changed()
        case .droppedNewest:
            counters.eventsDropped(1)
            feed.changed()
        case .overflow:
            counters.fellBehind(buffered: state.withLock(of: self) { $0.buffer.policy.bufferSize })
            leaveRoster()
        }
        if let handed { settle(handed) }
        if let first { deliver(from: first) }
    }

    /// The feed has finished: no more live events come.
    func feedFinished() {
        finish(reason: feed.finishReason ?? "the server is shutting down")
    }

    /// Ends this client's stream after what is buffered and a shutdown message.
    func finish(reason: String) {
        let (finishing, downstream) = state.withLock(of: self) { state in
            (state.buffer.finish(reason: reason), state.downstream)
        }
        guard finishing else { return }
        leaveRoster()
        downstream?.feedIsFinishing()
        drain()
    }

    // MARK: From the client

    package func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "Demand must be greater than zero: request(.none) is not allowed")
        let (first, buffered, handed) = state.withLock(of: self) { state -> (Step?, Int, HandOver?) in
            state.buffer.add(demand)
            let buffered = state.buffer.bufferedEvents
            if let handed = state.handOver() { return (nil, buffered, handed) }
            return (state.claim(), buffered, nil)
        }
        counters.lag(buffered)
        if let handed { settle(handed) }
        if let first { deliver(from: first) }
    }

    package func cancel() {
        let left = state.withLock(of: self) { state -> Bool in
            let left = state.downstream != nil
            state.downstream = nil
            state.buffer.release()
            return left
        }
        leaveRoster()
        if left { leave() }
    }

    // MARK: Delivery

    /// No more live events: the client leaves its feed's roster (if it is a member).
    private func leaveRoster() {
        feed.roster.remove(self)
    }

    private func leave() {
        guard counted else { return }
        counters.clientLeft()
        counters.release()
        feed.changed()
    }

    /// Lets go of the feed's events before the client began, without leaving: the client goes on
    /// reading the history, and attaches again with a subscription of its own.
    func abandon() {
        state.withLock(of: self) { state in
            state.downstream = nil
            state.buffer.release()
        }
        leaveRoster()
    }

    /// After a hand-over: counts what was handed, wakes the writer, and completes the stream if
    /// the shutdown message was among them.
    private func settle(_ handed: HandOver) {
        if handed.events > 0 { counters.eventsDelivered(handed.events) }
        for count in handed.dropsNoticed { counters.dropNoticed(count) }
        handed.wake?.resume()
        if handed.completes { drain() }
    }

    private func drain() {
        if let first = state.withLock(of: self, { $0.claim() }) { deliver(from: first) }
    }

    /// Runs the delivering thread's steps from `first` until there is nothing left to do.
    private func deliver(from first: Step) {
        var step = first
        while true {
            switch step {
            case .stop:
                return
            case .complete(let downstream, let completion):
                leaveRoster()
                leave()
                downstream.receive(completion: completion)
                return
            case .deliver(let downstream, let message):
                switch message {
                case .event: counters.eventDelivered()
                case .dropped(let count, _): counters.dropNoticed(count)
                case .reset, .shutdown: break
                }
                let more = downstream.receive(message)
                step = state.withLock(of: self) { state in
                    if more > .none { state.buffer.add(more) }
                    return state.step()
                }
            }
        }
    }
}
/// What a client asks of its feed, whatever the feed's values.
protocol FeedOfClients: AnyObject, Sendable {
    /// A client joined or left, or lost events: the feed's stats publisher emits.
    func changed()
    /// Why the feed finished, once it has.
    var finishReason: String? { get }
    /// The clients its live events go to.
    var roster: FeedRoster { get }
}

extension EventFeed: FeedOfClients {}

/// A client's failure, boxed (``ClientSubscription``'s state).
private final class FailureBox: Sendable {
    let failure: FeedClientFailure

    init(_ failure: FeedClientFailure) { self.failure = failure }
}
#endif
