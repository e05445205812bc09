import DequeModule
import Sluice

/// One client's side of a feed, as a value: the events replayed on resume, the events buffered
/// while the client's writes are in progress, its demand, and its ``SlowClientPolicy``. The
/// transitions say what to do; ``ClientSubscription`` does it outside its lock. Tested without
/// sockets.
struct ClientBuffer {
    /// What became of an event offered to the buffer.
    enum Admission: Equatable {
        /// Buffered (or delivered, if the client has demand).
        case buffered
        /// Already replayed to this client (the replay snapshot overlaps the live stream).
        case duplicate
        /// Buffered, and the oldest buffered event dropped for it (``SlowClientPolicy/dropOldest(buffer:)``).
        case droppedOldest
        /// Not buffered (``SlowClientPolicy/dropNewest(buffer:)``).
        case droppedNewest
        /// The buffer was full under ``SlowClientPolicy/disconnect(buffer:)``: the client is to be
        /// disconnected. The buffer is emptied.
        case overflow
        /// The stream has ended (shutdown queued or failed): nothing more is taken.
        case closed
    }

    private enum Item {
        case event(FeedEvent)
        case dropped(Int)
    }

    let policy: SlowClientPolicy
    private var reset: UInt64??              // a pending reset message (missed count, if known)
    private var replay: ArraySlice<FeedEvent> = []
    private var items = Deque<Item>()
    private(set) var bufferedEvents = 0
    private var headGap = 0                    // dropOldest: events lost before everything buffered
    private var tailGap = 0                    // dropNewest: events lost after everything buffered
    private var skipThrough: UInt64 = 0        // live events numbered up to here were replayed
    private(set) var demand = Subscribers.Demand.none
    private var shutdown: String?              // the reason, once the stream is to end
    private(set) var shutdownDelivered = false
    private(set) var failed = false

    init(policy: SlowClientPolicy) {
        precondition(policy.bufferSize > 0, "a slow-client buffer must hold at least one event")
        self.policy = policy
    }

    /// Sets where this client starts: `replay` (events it missed, in order) first, after a reset
    /// message if `reset` is non-nil; live events numbered up to `startAfter` are skipped, being
    /// either in `replay` or before the client's start. Events buffered live before this call
    /// and numbered up to `startAfter` are removed.
    mutating func start(replay: [FeedEvent], reset: UInt64??, startAfter: UInt64) {
        self.replay = replay[...]
        self.reset = reset
        skipThrough = startAfter
        while case .event(let event)? = items.first, event.id <= startAfter {
            items.removeFirst()
            bufferedEvents -= 1
        }
    }

    /// Offers a live event.
    mutating func offer(_ event: FeedEvent) -> Admission {
        if shutdown != nil || failed { return .closed }
        if event.id <= skipThrough { return .duplicate }
        if bufferedEvents < policy.bufferSize {
            if tailGap > 0 {
                items.append(.dropped(tailGap))
                tailGap = 0
            }
            items.append(.event(event))
            bufferedEvents += 1
            return .buffered
        }
        switch policy {
        case .dropOldest:
            while true {
                switch items.removeFirst() {
                case .event:
                    headGap += 1
                    items.append(.event(event))
                    return .droppedOldest
                case .dropped(let count):   // not made under this policy; kept for completeness
                    headGap += count
                }
            }
        case .dropNewest:
            tailGap += 1
            return .droppedNewest
        case .disconnect:
            failed = true
            items.removeAll()
            replay = []
            bufferedEvents = 0
            return .overflow
        }
    }

    /// Adds the client's demand.
    mutating func add(_ more: Subscribers.Demand) {
        demand += more
    }

    /// Queues the last message: the stream ends after what is buffered and the shutdown message.
    /// Returns false when the stream had already ended or was ending.
    mutating func finish(reason: String) -> Bool {
        guard shutdown == nil, !failed else { return false }
        shutdown = reason
        return true
    }

    /// The next message for the client, if it has demand and there is one.
    mutating func next() -> ClientMessage? {
        guard demand > .none, !failed, !shutdownDelivered else { return nil }
        let message: ClientMessage
        if let missed = reset {
            reset = nil
            message = .reset(missed: missed)
        } else if let event = replay.popFirst() {
            message = .event(event)
        } else if headGap > 0 {
            message = .dropped(count: headGap)
            headGap = 0
        } else if let item = items.popFirst() {
            switch item {
            case .event(let event):
                bufferedEvents -= 1
                message = .event(event)
            case .dropped(let count):
                message = .dropped(count: count)
            }
        } else if tailGap > 0 {
            message = .dropped(count: tailGap)
            tailGap = 0
        } else if let reason = shutdown {
            shutdownDelivered = true
            message = .shutdown(reason: reason)
        } else {
            return nil
        }
        demand -= 1
        return message
    }
}
