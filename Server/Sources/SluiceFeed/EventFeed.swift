#if Server
import DequeModule
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import Sluice

/// One stream of events for many clients, each at its own pace: the fan-out behind
/// `ServerSentEvents` and `WebSocketFeed` (SluiceHummingbird), or any transport of your own.
///
/// ```swift
/// let feed = EventFeed(prices.map { ServerSentEvent(data: $0.json) },
///                      options: .init(replay: 1_000, policy: .dropOldest(buffer: 256)))
/// router.get("prices") { request, _ in ServerSentEvents(feed: feed).response(to: request) }
/// ```
///
/// - **Ids**: each event's ``EventID`` is an epoch and a position, assigned once, so every client
///   sees the same id for the same event. A feed of a publisher's values (``init(_:options:)``)
///   numbers them from 1 under an epoch of its own, drawn at random when the feed is made. A feed
///   over a log (``init(log:after:history:options:)``) takes both from the log: the same event has
///   the same id on every instance that serves it, and a client may resume on any of them.
/// - **Replay**: the last ``Options/replay`` events are kept; a client that resumes after an id
///   within them gets exactly the events after it, then live events, without a duplicate or a gap.
///   From further back, a feed over a log reads what it missed from the log's history first; an
///   in-memory feed, or a history that no longer has it, gives ``FeedMessage/reset(missed:)``
///   first. So does an id of another epoch, or one that is not an id.
/// - **Clients**: each ``client(from:policy:)`` subscription is a subscriber of the feed with its
///   own demand and buffer: the feed's work per event per client is one append to that client's
///   buffer (or one delivery), whatever the other clients do. A client that does not keep up is
///   handled by its ``SlowClientPolicy``.
/// - **Shutdown**: ``finish(reason:)``, the upstream's completion, or (as a `Service` in a
///   `ServiceGroup`) graceful shutdown: every client gets ``FeedMessage/shutdown(reason:)`` after
///   what is buffered for it, then its stream finishes.
/// - Thread-safe: the upstream may deliver on any thread; clients attach and leave from any thread.
public final class EventFeed<Output: Sendable>: Service, @unchecked Sendable {
    /// The feed's settings.
    public struct Options: Sendable {
        /// How many of the latest events are kept for clients that resume (1,024).
        public var replay: Int
        /// How many bytes of events (frames, or values' text or bytes) are kept for clients that
        /// resume, at most (64 MiB): past it the oldest are let go, even within ``replay``. A client
        /// resuming from before them reads them from a log's history, or is told
        /// ``FeedMessage/reset(missed:)``.
        public var replayBytes: Int
        /// The policy for clients that fall behind, unless a client is given its own
        /// (``SlowClientPolicy/dropOldest(buffer:)`` of 256 events).
        public var policy: SlowClientPolicy
        /// How many bytes of events (frames, or values' text or bytes) a client's buffer holds at
        /// most (16 MiB), besides its policy's count of events: past either, the policy applies —
        /// a stalled client never pins more than this of large events. A buffer always takes one
        /// event, whatever its size.
        public var bufferBytes: Int
        /// How many events a resuming client may read from a log's history before it joins the live
        /// events (50,000): from further back than that, it gets ``FeedMessage/reset(missed:)``.
        public var historyLimit: Int
        /// How many bytes of events a resuming client may hold, read from a log's history, before it
        /// joins the live events (64 MiB, checked after each page of at most 1,000 events): past it,
        /// as past ``historyLimit``, it gets ``FeedMessage/reset(missed:)`` instead.
        public var historyBytes: Int
        /// How many reads of a log's history the feed makes at once (4); the others wait their
        /// turn, in the order they came. Clients that ask for the same page — resuming from the
        /// same id, as a stopped instance's clients do — while it is read or waits, or within a
        /// second of its answer, share that one read. However many clients resume from far back,
        /// they hold at most this many of the database's connections. A client that leaves while
        /// it waits or reads (its connection closed) reads no further.
        public var historyReaders: Int
        /// How many clients the feed serves at once (50,000): one more is refused
        /// (``FeedClientFailure/tooManyClients(limit:)``; the transports answer 503 with
        /// `Retry-After` before any stream begins), with a `notice` log line and
        /// `sluice_feed_clients_refused_total`.
        public var maximumClients: Int
        /// The feed's name: the `feed` dimension of its metrics and the `feed` metadata of its log
        /// lines ("feed").
        public var name: String
        /// Where the feed logs its clients' lives: joins and resumes, resets, drops and departures at
        /// `debug`, a client disconnected for falling behind or a stalled shutdown at `notice`, a
        /// history that cannot be read at `warning`; nothing per event above `trace`.
        public var logger: Logger
        /// Where the feed's metrics are made (`MetricsSystem.factory`, read when the options are
        /// made: bootstrap the metrics system first). Their names are in Server/README.md.
        public var metrics: any MetricsFactory

        /// Options keeping `replay` events, with `policy` for slow clients.
        public init(replay: Int = 1_024, replayBytes: Int = 64 << 20, policy: SlowClientPolicy = .dropOldest(buffer: 256),
                    bufferBytes: Int = 16 << 20, historyLimit: Int = 50_000, historyBytes: Int = 64 << 20, historyReaders: Int = 4, maximumClients: Int = 50_000, name: String = "feed",
                    logger: Logger = Logger(label: "sluice.feed"), metrics: any MetricsFactory = MetricsSystem.factory) {
            precondition(replay >= 0, "replay must not be negative")
            precondition(historyReaders > 0, "historyReaders must be positive")
            precondition(maximumClients > 0, "maximumClients must be positive")
            self.historyReaders = historyReaders
            self.maximumClients = maximumClients
            precondition(policy.bufferSize > 0, "a slow-client buffer must hold at least one event")
            precondition(historyLimit >= 0, "historyLimit must not be negative")
            precondition(replayBytes >= 0 && historyBytes >= 0, "replayBytes and historyBytes must not be negative")
            precondition(bufferBytes > 0, "bufferBytes must be positive")
            self.bufferBytes = bufferBytes
            self.replay = replay
            self.replayBytes = replayBytes
            self.historyBytes = historyBytes
            self.policy = policy
            self.historyLimit = historyLimit
            self.name = name
            self.logger = logger
            self.metrics = metrics
        }
    }

    private struct State {
        var epoch: String
        var lastID: UInt64
        var serial: UInt64 = 0
        var replay = Deque<FeedEvent>()
        /// The bytes of the events in `replay`.
        var replayBytes = 0
        var upstream: (any Subscription)?
        var finished: String?
    }

    /// The feed's settings.
    public let options: Options
    /// The clients the live events go to.
    let roster = FeedRoster()
    let counters: FeedCounters
    private let history: HistoryPages<Output>?
    private let changes = CurrentValueSubject<Void, Never>(())
    private let state: NIOLockedValueBox<State>

    /// A feed of `upstream`'s values, subscribed to at once, numbered from 1 under a new random
    /// epoch. When `upstream` completes (finished or failed), the feed finishes: clients get
    /// ``FeedMessage/shutdown(reason:)``.
    public init<Upstream: Publisher>(_ upstream: Upstream, options: Options = Options())
    where Upstream.Output == Output {
        self.options = options
        counters = FeedCounters(name: options.name, logger: options.logger, metrics: options.metrics)
        history = nil
        state = NIOLockedValueBox(State(epoch: EventID.randomEpoch(), lastID: 0))
        upstream.subscribe(FeedInlet<Output, Output, Upstream.Failure>(feed: self) { feed, value in feed.publish(value) })
    }

    /// A feed over a log: `upstream` gives the log's entries after `start` in order (events with
    /// their ids, and the log's breaks), and `history` reads older ones for clients that resume from
    /// further back than ``Options/replay``. Entries at or before the latest one are ignored, so a
    /// source may repeat itself after a reconnect; an event that does not follow the latest one
    /// (another epoch, a position skipped) is taken as a break: every client gets
    /// ``FeedMessage/reset(missed:)`` before it.
    public init<Upstream: Publisher>(log upstream: Upstream, after start: EventID, history: FeedHistory<Output>?,
                                     options: Options = Options())
    where Upstream.Output == LogEntry<Output> {
        self.options = options
        counters = FeedCounters(name: options.name, logger: options.logger, metrics: options.metrics)
        self.history = history.map { HistoryPages(history: $0, readers: options.historyReaders) }
        state = NIOLockedValueBox(State(epoch: start.epoch, lastID: start.position))
        upstream.subscribe(FeedInlet<Output, LogEntry<Output>, Upstream.Failure>(feed: self) { feed, entry in feed.take(entry) })
    }

    deinit {
        state.withLockedValue { $0.upstream }?.cancel()
    }

    // MARK: Clients

    /// A client of the feed: a publisher of this client's ``FeedMessage``s, starting at `start`
    /// (``ResumePoint/live``: with the next live event). `policy` overrides the feed's
    /// ``Options/policy`` for this client.
    ///
    /// Each subscription is a client: it buffers live events under its policy and delivers them
    /// as its subscriber requests them. It fails with ``FeedClientFailure`` under
    /// ``SlowClientPolicy/disconnect(buffer:)``, or when a history it must read is unavailable;
    /// otherwise it finishes after ``FeedMessage/shutdown(reason:)``. Cancelling it leaves the feed.
    /// A client that reads history gets its subscription once the history is read.
    public func client(from start: ResumePoint = .live, policy: SlowClientPolicy? = nil) -> FeedClient<Output> {
        FeedClient(feed: self, start: start, policy: policy ?? options.policy)
    }

    /// A client starting after `lastEventID` (`nil`: with the next live event).
    public func client(after lastEventID: EventID?, policy: SlowClientPolicy? = nil) -> FeedClient<Output> {
        client(from: lastEventID.map(ResumePoint.after) ?? .live, policy: policy)
    }

    /// The start a new client asking for `start` has from this moment: ``ResumePoint/live`` becomes
    /// ``ResumePoint/liveSince(_:)`` the feed's latest event, so that a client that joins a little
    /// later — once a WebSocket upgrade has been answered, once a response's body begins — still gets
    /// every event from now. Other starts are returned as they are.
    public func fixing(_ start: ResumePoint) -> ResumePoint {
        guard case .live = start else { return start }
        return .liveSince(lastEventID)
    }

    /// The counters now.
    public var stats: FeedStats { counters.snapshot }

    /// The counters, first at once, then each time a client connects or leaves, an event is
    /// dropped, a client is disconnected, or the feed finishes (deliveries alone do not emit:
    /// read ``stats`` for them). Each value has every counter as of its emission.
    public var statsPublisher: AnyPublisher<FeedStats, Never> {
        let counters = counters
        return changes.map { _ in counters.snapshot }.eraseToAnyPublisher()
    }

    /// The id of the latest event (position 0 of the feed's epoch before the first).
    public var lastEventID: EventID {
        state.withLockedValue { EventID(uncheckedEpoch: $0.epoch, position: $0.lastID) }
    }

    /// Removes the feed's metrics (those named after ``Options/name``) from the metrics system:
    /// for a feed whose name no other feed shares, once it is finished and released.
    public func removeMetrics() {
        counters.destroyMetrics()
    }

    /// Whether the feed has finished.
    public var isFinished: Bool { state.withLockedValue { $0.finished != nil } }

    /// Finishes the feed: cancels the upstream; every client gets ``FeedMessage/shutdown(reason:)``
    /// after what is buffered for it, then its stream finishes. Clients that connect later get the
    /// shutdown message alone. Idempotent.
    public func finish(reason: String = "the server is shutting down") {
        let upstream = state.withLockedValue { state -> (any Subscription)?? in
            guard state.finished == nil else { return .none }
            state.finished = reason
            defer { state.upstream = nil }
            return .some(state.upstream)
        }
        guard case .some(let subscription) = upstream else { return }
        subscription?.cancel()
        for client in roster.finish() { client.feedFinished() }
        changed()
    }

    /// As a `Service`: waits for graceful shutdown (or cancellation), then ``finish(reason:)``.
    ///
    /// Streams served by Hummingbird also end by themselves on the server's graceful shutdown
    /// (`ServerSentEvents` listens for it per stream), so the server never waits for this
    /// service to close its connections.
    public func run() async throws {
        try? await gracefulShutdown()
        finish()
    }

    // MARK: Internal

    var finishReason: String? { state.withLockedValue { $0.finished } }

    func changed() { changes.send(()) }

    func attached(_ subscription: any Subscription) {
        let cancel = state.withLockedValue { state -> Bool in
            guard state.finished == nil, state.upstream == nil else { return true }
            state.upstream = subscription
            return false
        }
        if cancel { subscription.cancel() } else { subscription.request(.unlimited) }
    }

    /// An in-memory feed's next value: numbered after the latest.
    func publish(_ value: Output) {
        let event = state.withLockedValue { state -> FeedEvent? in
            guard state.finished == nil else { return nil }
            state.lastID += 1
            state.serial += 1
            let event: FeedEvent = TypedFeedEvent(id: state.lastID, epoch: state.epoch, serial: state.serial, value: value)
            keep(event, in: &state)
            return event
        }
        guard let event else { return }
        counters.eventPublished()
        roster.send(event)
    }

    /// A log's next entry: an event after the latest, or a break.
    func take(_ entry: LogEntry<Output>) {
        let events = state.withLockedValue { state -> [FeedEvent] in
            guard state.finished == nil else { return [] }
            switch entry {
            case .event(let id, let value):
                if id.epoch == state.epoch, id.position <= state.lastID { return [] }   // seen
                var out: [FeedEvent] = []
                if state.epoch == EventID.origin.epoch, state.lastID == 0, id.position == 1 {
                    state.epoch = id.epoch   // the topic's first history begins: no break
                } else if id.epoch != state.epoch || id.position != state.lastID + 1 {
                    let missed = id.epoch == state.epoch ? id.position - state.lastID - 1 : nil
                    out.append(breakHistory(&state, epoch: id.epoch, after: id.position - 1, missed: missed))
                }
                state.lastID = id.position
                state.serial += 1
                let event: FeedEvent = TypedFeedEvent(id: id.position, epoch: id.epoch, serial: state.serial, value: value)
                keep(event, in: &state)
                out.append(event)
                return out
            case .reset(let epoch, let after, let missed):
                if epoch == state.epoch, after <= state.lastID { return [] }   // nothing lost here
                if missed == 0, after == state.lastID {   // renamed: the same history goes on
                    state.epoch = epoch
                    state.replay.removeAll()   // its events' ids name the old epoch
                    state.replayBytes = 0
                    return []
                }
                return [breakHistory(&state, epoch: epoch, after: after, missed: missed)]
            }
        }
        for event in events {
            if !event.isBreak { counters.eventPublished() }
            roster.send(event)
        }
    }

    private func keep(_ event: FeedEvent, in state: inout State) {
        guard options.replay > 0 else { return }
        state.replay.append(event)
        state.replayBytes += event.bytes
        while state.replay.count > options.replay || state.replayBytes > options.replayBytes, let oldest = state.replay.popFirst() {
            state.replayBytes -= oldest.bytes
        }
    }

    private func breakHistory(_ state: inout State, epoch: String, after: UInt64, missed: UInt64?) -> FeedEvent {
        state.serial += 1
        state.epoch = epoch
        state.lastID = after
        state.replay.removeAll()
        state.replayBytes = 0
        return FeedBreak(epoch: epoch, after: after, missed: missed, serial: state.serial)
    }

    /// A transport's new client from `start`, with `options`' window, heartbeat (when `heartbeat`
    /// is on), grace and policy: joined at once. Its timers run on `eventLoop` (the connection's,
    /// for a writer on it), else on one of `options`' loops.
    package func connect(from start: ResumePoint, options: FeedStreamOptions, heartbeat: Duration?,
                         on eventLoop: (any EventLoop)? = nil) -> ClientOutlet {
        let outlet = ClientOutlet(window: options.window, heartbeat: heartbeat.map(TimeAmount.init),
                                  shutdownGrace: TimeAmount(options.shutdownGrace), eventLoop: eventLoop ?? options.eventLoopGroup.any(),
                                  counters: counters)
        join(outlet, from: start, policy: options.policy)
        return outlet
    }

    /// Makes `sink` a client under `policy` (`nil`: the feed's), starting at `start`: reads what it
    /// missed from the history first when the replay window does not reach back to it, then
    /// attaches it to the live events, takes the replay from the window, hands it its subscription
    /// and begins deliveries.
    package func join(_ sink: any ClientSink, from start: ResumePoint, policy: SlowClientPolicy?) {
        join(sink, from: start, seat: ClientSeat(policy: policy ?? options.policy))
    }

    /// Makes `sink` a client as ``join(_:from:policy:)`` does, in `seat` (its policy, its topic's
    /// index among its connection's, its buffer's byte limit).
    package func join(_ sink: any ClientSink, from start: ResumePoint, seat: ClientSeat) {
        guard counters.admit(limit: options.maximumClients) else {
            return refuse(sink, .tooManyClients(limit: options.maximumClients), seat: seat, counted: false)
        }
        if case .after = start { counters.resumed(from: start) }
        switch resumption(from: start, read: nil) {
        case .ready:
            attach(sink, from: start, read: nil, seat: seat)
        case .more(let after):
            Task { await self.catchUp(sink, from: start, after: after, seat: seat) }
        }
    }

    /// What a client has read from the history so far.
    struct HistoryRead {
        var events: [FeedEvent] = []
        /// The bytes of `events`.
        var bytes = 0
        var reset: UInt64??
        var epoch: String
        var through: UInt64
        var exhausted = false
    }

    private enum Resumption {
        case ready(FeedStart)
        case more(after: EventID)
    }

    /// Reads the history after `after` page by page until the window reaches back to what was read,
    /// then attaches the client.
    private func catchUp(_ sink: any ClientSink, from start: ResumePoint, after: EventID, seat: ClientSeat) async {
        guard let history else { return }
        var read = HistoryRead(epoch: after.epoch, through: after.position)
        var next = after
        do {
            while true {
                if sink.hasLeft { return counters.release() }   // nobody to read for
                let room = options.historyLimit - read.events.count
                if room <= 0 || read.bytes > options.historyBytes {   // further back than a client may catch up: a reset instead
                    read = HistoryRead(reset: .some(nil), epoch: read.epoch, through: read.through, exhausted: true)
                    read.events = []
                    break
                }
                guard let entries = try await history.entries(after: next, limit: min(room, 1_000), for: sink) else {
                    return counters.release()   // it left while the page waited for its turn
                }
                if entries.isEmpty { read.exhausted = true }
                for entry in entries {
                    switch entry {
                    case .event(let id, let value):
                        if id.epoch != read.epoch || id.position != read.through + 1 {   // a break inside the page
                            read.events.removeAll()
                            read.bytes = 0
                            read.reset = .some(id.epoch == read.epoch ? id.position - read.through - 1 : nil)
                            read.epoch = id.epoch
                        }
                        let event = TypedFeedEvent(id: id.position, epoch: id.epoch, serial: 0, value: value)
                        read.events.append(event)
                        read.bytes += event.bytes
                        read.through = id.position
                    case .reset(let epoch, let position, 0) where position == read.through:
                        read.epoch = epoch   // renamed: the same history goes on
                    case .reset(let epoch, let position, let missed):
                        read.events.removeAll()
                        read.bytes = 0
                        read.reset = .some(missed)
                        read.epoch = epoch
                        read.through = position
                    }
                }
                if case .ready = resumption(from: start, read: read) { break }
                next = EventID(uncheckedEpoch: read.epoch, position: read.through)
            }
        } catch {
            return refuse(sink, .historyUnavailable(reason: "\(error)"), seat: seat)
        }
        attach(sink, from: start, read: read, seat: seat)
    }

    /// Ends `sink`'s stream with `failure` before it began.
    private func refuse(_ sink: any ClientSink, _ failure: FeedClientFailure, seat: ClientSeat, counted: Bool = true) {
        let subscription = ClientSubscription(feed: self, seat: seat, downstream: sink, counted: counted)
        subscription.start(FeedStart(replay: [], reset: nil, serial: 0, epoch: "", startAfter: 0))
        sink.receive(subscription: subscription)
        subscription.fail(failure)
    }

    /// Whether the feed serves ``Options/maximumClients`` clients now: a transport answers a new
    /// one 503 (with `Retry-After`) rather than begin a stream that would be refused.
    public var isFull: Bool { counters.isFull(limit: options.maximumClients) }

    /// History reads being made now, and those waiting for their turn (a read serves every
    /// client that asked for its page meanwhile).
    package var historyTurns: (reading: Int, waiting: Int) {
        history?.turns ?? (0, 0)
    }

    /// Attaches `sink` to the live events and starts it where `resumption` says. The history read
    /// so far, if any, reaches the window (a page more may be needed when the feed moved on while
    /// it was read: then it goes back to reading).
    private func attach(_ sink: any ClientSink, from start: ResumePoint, read: HistoryRead?, seat: ClientSeat) {
        let subscription = ClientSubscription(feed: self, seat: seat, downstream: sink)
        let live = roster.add(subscription)   // live events from now on are buffered
        if !live { subscription.feedFinished() }   // it finished: the client gets its shutdown
        switch resumption(from: start, read: read) {
        case .ready(let begin):
            subscription.start(begin)
            sink.receive(subscription: subscription)
            subscription.attached()
        case .more(let after):   // the window moved past what was read, after the check
            subscription.abandon()
            Task { await self.catchUp(sink, from: start, after: after, seat: seat) }
        }
    }

    /// Where a client starting at `start` begins, given what it has read from the history.
    private func resumption(from start: ResumePoint, read: HistoryRead?) -> Resumption {
        state.withLockedValue { state in
            let live = FeedStart(replay: [], reset: nil, serial: state.serial, epoch: state.epoch, startAfter: state.lastID)
            var reset = live
            reset.reset = .some(nil)
            var requested: EventID
            switch start {
            case .live: return .ready(live)
            case .unreadable: return .ready(reset)
            case .after(let id), .liveSince(let id): requested = id
            }
            if requested.epoch == EventID.origin.epoch {   // before the first event of whatever history
                guard requested.isOrigin else { return .ready(reset) }
                requested = EventID(uncheckedEpoch: state.epoch, position: 0)
            }
            if let read {
                guard read.epoch == state.epoch else { return .ready(reset) }   // the log broke meanwhile
                let oldest = state.replay.first?.id ?? state.lastID + 1
                guard read.through + 1 >= oldest || read.exhausted || read.through >= state.lastID else {
                    return .more(after: EventID(uncheckedEpoch: read.epoch, position: read.through))
                }
                var begin = live
                begin.replay = read.events + state.replay.filter { $0.id > read.through }
                begin.reset = read.reset
                begin.startAfter = max(state.lastID, read.through)
                return .ready(begin)
            }
            guard requested.epoch == state.epoch else {
                // A log's history tells whether the id's epoch is an earlier name of this one.
                return history == nil ? .ready(reset) : .more(after: requested)
            }
            if requested.position == state.lastID { return .ready(live) }
            if requested.position > state.lastID {
                // Either a log's event this instance has not read yet (the client comes from a
                // quicker instance), or an id the log never had (a failover lost its commits, or a
                // forged id): the history says which — the events after it, or a reset to its head.
                // An in-memory feed never gave it.
                guard history != nil else { return .ready(reset) }
                return .more(after: requested)
            }
            let oldest = state.replay.first?.id ?? state.lastID + 1
            if requested.position + 1 >= oldest {
                var begin = live
                begin.replay = state.replay[Int(requested.position + 1 - oldest)...].elementsArray
                return .ready(begin)
            }
            if history != nil { return .more(after: requested) }
            var begin = live
            begin.replay = state.replay.elementsArray
            begin.reset = .some(oldest - requested.position - 1)
            return .ready(begin)
        }
    }
}

/// Where a client sits in its connection: its slow-client policy and its buffer of the feed's
/// ``EventFeed/Options/bufferBytes`` — or, of a connection of several topics, its topic's index
/// among the connection's and the connection's one buffer, whose policy and bytes it shares.
package struct ClientSeat: Sendable {
    var policy: SlowClientPolicy
    var topic: Int32 = 0
    var connection: ConnectionBuffer?

    /// A connection of one feed, under `policy`.
    package init(policy: SlowClientPolicy) {
        self.policy = policy
    }

    /// The topic `topic` of a connection of several, whose buffer is `connection`.
    init(topic: Int32, of connection: ConnectionBuffer) {
        policy = connection.policy
        self.topic = topic
        self.connection = connection
    }
}

/// Where a client begins: events to replay (after a reset message if `reset` is non-nil), and
/// what of the live stream it already has — the feed's events and breaks up to `serial`, and the
/// events of `epoch` up to `startAfter`.
struct FeedStart {
    var replay: [FeedEvent]
    var reset: UInt64??
    var serial: UInt64
    var epoch: String
    var startAfter: UInt64
}

/// The feed's subscriber to its upstream: forwards to the feed, which it does not keep alive.
final class FeedInlet<Value: Sendable, Input, Failure: Error>: Subscriber, @unchecked Sendable {
    private weak var feed: EventFeed<Value>?
    private let forward: (EventFeed<Value>, Input) -> Void

    init(feed: EventFeed<Value>, forward: @escaping (EventFeed<Value>, Input) -> Void) {
        self.feed = feed
        self.forward = forward
    }

    func receive(subscription: any Subscription) {
        if let feed { feed.attached(subscription) } else { subscription.cancel() }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        if let feed { forward(feed, input) }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: feed?.finish(reason: "the event stream ended")
        case .failure(let error): feed?.finish(reason: "the event stream failed: \(error)")
        }
    }
}
#endif
