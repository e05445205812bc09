import DequeModule
import NIOConcurrencyHelpers
import ServiceLifecycle
import Sluice

/// One stream of events for many clients, each at its own pace: the fan-out behind
/// ``ServerSentEvents`` and ``WebSocketFeed``.
///
/// ```swift
/// let feed = EventFeed(prices.map { ServerSentEvent(data: $0.json) },
///                      options: .init(replay: 1_000, policy: .dropOldest(buffer: 256)))
/// router.get("prices") { request, _ in ServerSentEvents(feed: feed).response(to: request) }
/// ```
///
/// - **Numbering**: the feed subscribes to its upstream at once, with unlimited demand, and numbers
///   each event from 1 as it arrives — once, so every client sees the same id for the same event.
/// - **Replay**: the last ``Options/replay`` events are kept; a client that resumes after an id
///   within them gets exactly the events after it, then live events, without a duplicate or a gap.
///   A client whose id is older than that gets ``FeedMessage/reset(missed:)`` first.
/// - **Clients**: each ``client(after:policy:)`` subscription is a subscriber of the feed with its
///   own demand and buffer: the feed's work per event per client is one append to that client's
///   buffer (or one delivery), whatever the other clients do. A client that does not keep up is
///   handled by its ``SlowClientPolicy``.
/// - **Shutdown**: ``finish()``, the upstream's completion, or (as a `Service` in a
///   `ServiceGroup`) graceful shutdown: every client gets ``FeedMessage/shutdown(reason:)`` after
///   what is buffered for it, then its stream finishes.
/// - Thread-safe: the upstream may deliver on any thread; clients attach and leave from any thread.
public final class EventFeed<Output: Sendable>: Service, @unchecked Sendable {
    /// The feed's settings.
    public struct Options: Sendable {
        /// How many of the latest events are kept for clients that resume (1,024).
        public var replay: Int
        /// The policy for clients that fall behind, unless a client is given its own
        /// (``SlowClientPolicy/dropOldest(buffer:)`` of 256 events).
        public var policy: SlowClientPolicy

        /// Options keeping `replay` events, with `policy` for slow clients.
        public init(replay: Int = 1_024, policy: SlowClientPolicy = .dropOldest(buffer: 256)) {
            precondition(replay >= 0, "replay must not be negative")
            precondition(policy.bufferSize > 0, "a slow-client buffer must hold at least one event")
            self.replay = replay
            self.policy = policy
        }
    }

    private struct State {
        var lastID: UInt64 = 0
        var replay = Deque<FeedEvent>()
        var upstream: (any Subscription)?
        var finished: String?
    }

    /// The feed's settings.
    public let options: Options
    let subject = PassthroughSubject<FeedEvent, Never>()
    let counters = FeedCounters()
    private let changes = CurrentValueSubject<Void, Never>(())
    private let state = NIOLockedValueBox(State())

    /// A feed of `upstream`'s values, subscribed to at once. When `upstream` completes (finished
    /// or failed), the feed finishes: clients get ``FeedMessage/shutdown(reason:)``.
    public init<Upstream: Publisher>(_ upstream: Upstream, options: Options = Options())
    where Upstream.Output == Output {
        self.options = options
        upstream.subscribe(FeedInlet<Output, Upstream.Failure>(feed: self))
    }

    deinit {
        state.withLockedValue { $0.upstream }?.cancel()
    }

    // MARK: Clients

    /// A client of the feed: a publisher of this client's ``FeedMessage``s, starting after event
    /// `lastEventID` (replayed from the window, or a reset when too old) or, when `nil`, with the
    /// next live event. `policy` overrides the feed's ``Options/policy`` for this client.
    ///
    /// Each subscription is a client: it buffers live events under its policy and delivers them
    /// as its subscriber requests them. It fails with ``FeedClientFailure`` only under
    /// ``SlowClientPolicy/disconnect(buffer:)``; otherwise it finishes after
    /// ``FeedMessage/shutdown(reason:)``. Cancelling it leaves the feed.
    public func client(after lastEventID: UInt64? = nil, policy: SlowClientPolicy? = nil) -> FeedClient<Output> {
        FeedClient(feed: self, lastEventID: lastEventID, policy: policy ?? options.policy)
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

    /// The id of the latest event (0 before the first).
    public var lastEventID: UInt64 { state.withLockedValue { $0.lastID } }

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
        subject.send(completion: .finished)
        changed()
    }

    /// As a `Service`: waits for graceful shutdown (or cancellation), then ``finish(reason:)``.
    ///
    /// Streams served by Hummingbird also end by themselves on the server's graceful shutdown
    /// (``ServerSentEvents`` listens for it per stream), so the server never waits for this
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

    func publish(_ value: Output) {
        let event = state.withLockedValue { state -> FeedEvent? in
            guard state.finished == nil else { return nil }
            state.lastID += 1
            let event: FeedEvent = TypedFeedEvent(id: state.lastID, value: value)
            if options.replay > 0 {
                if state.replay.count == options.replay { state.replay.removeFirst() }
                state.replay.append(event)
            }
            return event
        }
        guard let event else { return }
        counters.published.store(event.id, ordering: .relaxed)
        subject.send(event)
    }

    /// Makes `sink` a client under `policy` (`nil`: the feed's): attaches it to the live events,
    /// takes the replay from the window, then hands it its subscription and begins deliveries.
    func join(_ sink: any ClientSink, after lastEventID: UInt64?, policy: SlowClientPolicy?) {
        let subscription = ClientSubscription(feed: self, policy: policy ?? options.policy, downstream: sink)
        subject.subscribe(subscription)   // live events from now on are buffered
        let start = resumption(after: lastEventID)
        subscription.start(replay: start.replay, reset: start.reset, startAfter: start.startAfter)
        sink.receive(subscription: subscription)
        subscription.attached()
    }

    /// Where a client resuming after `lastEventID` starts: the events to replay, a reset message
    /// (`.some(missed)`) if it is too old, and the id after which live events are new to it.
    func resumption(after lastEventID: UInt64?) -> (replay: [FeedEvent], reset: UInt64??, startAfter: UInt64) {
        state.withLockedValue { state in
            let last = state.lastID
            guard let requested = lastEventID, requested != last else { return ([], nil, last) }
            if requested > last {   // an id this feed never gave (another instance, or before a restart)
                return ([], .some(nil), last)
            }
            let oldest = state.replay.first?.id ?? last + 1
            if requested + 1 >= oldest {
                return (Array(state.replay[Int(requested + 1 - oldest)...]), nil, last)
            }
            return (Array(state.replay), .some(oldest - requested - 1), last)
        }
    }
}

/// The feed's subscriber to its upstream: forwards to the feed, which it does not keep alive.
final class FeedInlet<Input: Sendable, Failure: Error>: Subscriber, @unchecked Sendable {
    private weak var feed: EventFeed<Input>?

    init(feed: EventFeed<Input>) { self.feed = feed }

    func receive(subscription: any Subscription) {
        if let feed { feed.attached(subscription) } else { subscription.cancel() }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        feed?.publish(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: feed?.finish(reason: "the event stream ended")
        case .failure(let error): feed?.finish(reason: "the event stream failed: \(error)")
        }
    }
}
