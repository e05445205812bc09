#if Server
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
        /// Already replayed to this client (the replay snapshot overlaps the live stream), or before
        /// where the client starts.
        case duplicate
        /// Buffered, and the oldest buffered events dropped for it, `count` of them: one, or more
        /// to make room for its bytes (``SlowClientPolicy/dropOldest(buffer:)``).
        case droppedOldest(count: Int)
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
        case reset(FeedBreak)
    }

    let policy: SlowClientPolicy
    /// The index of the buffer's topic among its connection's, that its messages carry.
    let topic: Int32
    /// The most bytes of events buffered at once (one event is always taken, whatever its size):
    /// past it the policy applies as when the buffer holds `policy.bufferSize` events.
    let byteLimit: Int
    /// The buffer of the connection this topic's buffer is one of, whose room it takes (`nil`: a
    /// connection of one feed, bounded by ``policy`` and ``byteLimit`` alone).
    let connection: ConnectionBuffer?
    private var reset: FeedBreak?            // a pending reset message: what was missed, where the client stands
    /// The events to replay, `replay[replayed...]` still to send (an array and an index: 16 bytes
    /// less per client than a slice).
    private var replay: [FeedEvent] = []
    private var replayed = 0
    private var items = Deque<Item>()
    private(set) var bufferedEvents = 0
    private(set) var bufferedBytes = 0
    private var headGap = 0                    // dropOldest: events lost before everything buffered
    private var tailGap = 0                    // dropNewest: events lost after everything buffered
    private var skipSerial: UInt64 = 0         // live events and breaks the start already covers
    private var skipEpoch = ""                 // live events of this epoch numbered up to
    private var skipThrough: UInt64 = 0        // `skipThrough` were replayed or are before the start
    private(set) var demand = Subscribers.Demand.none
    private var shutdown: String?              // the reason, once the stream is to end
    private(set) var shutdownDelivered = false
    private(set) var failed = false

    init(policy: SlowClientPolicy, byteLimit: Int = .max, topic: Int32 = 0) {
        precondition(policy.bufferSize > 0, "a slow-client buffer must hold at least one event")
        self.policy = policy
        self.topic = topic
        self.byteLimit = byteLimit
        connection = nil
    }

    /// The buffer of the topic `topic` of a connection whose buffer is `connection`: its policy and
    /// bytes are the connection's.
    init(topic: Int32, of connection: ConnectionBuffer) {
        policy = connection.policy
        self.topic = topic
        byteLimit = connection.byteLimit
        self.connection = connection
    }

    /// Sets where this client starts: `replay` (events it missed, in order) first, after a reset
    /// message if `reset` is non-nil. Live events and breaks up to the feed's `serial` are skipped
    /// (the start reflects them), and so are live events of `epoch` numbered up to `startAfter`,
    /// being either in `replay` or before the client's start. What was buffered live before this
    /// call and is skipped so is removed.
    mutating func start(replay: [FeedEvent], reset: UInt64??, serial: UInt64, epoch: String, startAfter: UInt64) {
        self.replay = replay
        replayed = 0
        // The client stands before the first event replayed to it, or where it starts.
        self.reset = reset.map { missed in
            FeedBreak(epoch: replay.first?.epoch ?? epoch, after: replay.first.map { $0.id - 1 } ?? startAfter, missed: missed, serial: 0)
        }
        skipSerial = serial
        skipEpoch = epoch
        skipThrough = startAfter
        guard !items.isEmpty else { return }
        var kept = Deque<Item>()
        var skipping = true
        for item in items {
            if case .event(let event) = item {
                if event.serial <= serial || (skipping && event.epoch == epoch && event.id <= startAfter) {
                    unbuffer(event)
                    continue
                }
            } else if case .reset = item, skipping {
                skipping = false
            }
            kept.append(item)
        }
        items = kept
    }

    /// Offers a live event.
    mutating func offer(_ event: FeedEvent) -> Admission {
        if shutdown != nil || failed { return .closed }
        if event.serial <= skipSerial { return .duplicate }
        if event.isBreak {
            skipThrough = 0   // events after a break are new to this client
            items.append(.reset(event as! FeedBreak))
            return .buffered
        }
        if event.id <= skipThrough, event.epoch == skipEpoch { return .duplicate }
        if takeRoom(for: event) {
            if tailGap > 0 {
                items.append(.dropped(tailGap))
                tailGap = 0
            }
            append(event)
            return .buffered
        }
        switch policy {
        case .dropOldest:
            // The oldest events go, as many as make room; a reset message before them stays where it is.
            var dropped = 0
            while !takeRoom(for: event) {
                let oldest = items.firstIndex { if case .event = $0 { true } else { false } }!
                if case .event(let gone) = items[oldest] { unbuffer(gone) }
                if oldest == items.startIndex { items.removeFirst() } else { items.remove(at: oldest) }
                dropped += 1
            }
            headGap += dropped
            append(event)
            return .droppedOldest(count: dropped)
        case .dropNewest:
            tailGap += 1
            return .droppedNewest
        case .disconnect:
            failed = true
            release()
            return .overflow
        }
    }

    /// Whether `event` fits beside what is buffered — fewer events than the policy's buffer, and
    /// bytes within ``byteLimit``; an empty buffer takes any one event — counting the whole
    /// connection's when the buffer is one of its topics' (then the room is taken at once).
    private func takeRoom(for event: FeedEvent) -> Bool {
        if let connection { return connection.take(event.bytes, always: bufferedEvents == 0) }
        return bufferedEvents < policy.bufferSize && (bufferedEvents == 0 || bufferedBytes + event.bytes <= byteLimit)
    }

    /// Buffers `event`, whose room ``takeRoom(for:)`` found.
    private mutating func append(_ event: FeedEvent) {
        items.append(.event(event))
        bufferedEvents += 1
        bufferedBytes += event.bytes
    }

    /// `event` leaves the buffer: its room is given back.
    private mutating func unbuffer(_ event: FeedEvent) {
        bufferedEvents -= 1
        bufferedBytes -= event.bytes
        connection?.give(events: 1, bytes: event.bytes)
    }

    /// Empties the buffer and gives its room back to the connection: the client is gone (or
    /// disconnected), and what was buffered will never be sent.
    mutating func release() {
        connection?.give(events: bufferedEvents, bytes: bufferedBytes)
        items.removeAll()
        replay = []
        replayed = 0
        bufferedEvents = 0
        bufferedBytes = 0
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
        if let gap = reset {
            reset = nil
            message = .reset(gap, topic: topic)
        } else if replayed < replay.count {
            message = .event(replay[replayed], topic: topic)
            replayed += 1
            if replayed == replay.count {   // let the replayed events go
                replay = []
                replayed = 0
            }
        } else if headGap > 0 {
            message = .dropped(count: headGap, topic: topic)
            headGap = 0
        } else if let item = items.popFirst() {
            switch item {
            case .event(let event):
                unbuffer(event)
                message = .event(event, topic: topic)
            case .dropped(let count):
                message = .dropped(count: count, topic: topic)
            case .reset(let gap):
                message = .reset(gap, topic: topic)
            }
        } else if tailGap > 0 {
            message = .dropped(count: tailGap, topic: topic)
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
#endif
