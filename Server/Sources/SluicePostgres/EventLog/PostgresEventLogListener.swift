#if Server
import DequeModule
import Foundation
import NIOPosix
import Logging
import Metrics
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle
import Sluice
import SluiceFeed

/// One listener per process for every topic of a ``PostgresEventLog``: one connection (leased from
/// the log's `PostgresClient` for as long as it lasts, or a connection of its own from
/// ``Connection/configuration(_:)``), a `LISTEN` per topic that has readers —
/// added and removed while it runs — and, per topic, one reader of the table that each wake-up
/// sets going. A `Service`: run it in the app's `ServiceGroup`.
///
/// ```swift
/// let listener = PostgresEventLogListener(log: log, logger: logger)
/// let group = ServiceGroup(services: [postgres, listener, app], logger: logger)
/// let orders = listener.entries(of: "orders", after: try await log.head(of: "orders"))
/// ```
///
/// - **Catch-up**: a topic's reader reads the table from its last position each time its `LISTEN`
///   is in place — at the start and after every reconnect — and at each wake-up, so nothing
///   committed while no connection listened is lost while the table still holds it; when
///   retention removed some of it first, the reader says so with a
///   ``/SluiceFeed/LogEntry/reset(epoch:after:missed:)``, and a new epoch likewise.
/// - **Liveness and missed wake-ups**: every ``Options/probeInterval`` the connection reads the
///   heads of the topics it listens for (one query for all of them); a topic whose head is past
///   what its reader has read is read at once — so a wake-up that never came (a notification lost
///   with a connection, a `LISTEN` that silently stopped) delays an event by one interval at most.
///   A probe that takes longer than ``Options/probeTimeout`` (a half-open connection: a NAT or a
///   balancer dropped it without a word) closes the connection, which is replaced.
/// - **Reconnecting**: after any failure it connects again after a delay that doubles from
///   ``Options/initialDelay`` up to ``Options/maximumDelay``, each drawn at random between half and
///   all of it (jitter), and never gives up. ``state`` (and ``statePublisher``) says whether it is
///   listening or since when it has been reconnecting: a readiness check reads it.
public final class PostgresEventLogListener: Service, @unchecked Sendable {
    /// Liveness and reconnection settings.
    public struct Options: Sendable {
        /// How often the connection is probed, reading the heads of the topics it listens for (5 s):
        /// the longest an event waits when its wake-up is lost.
        public var probeInterval: Duration
        /// How long a probe may take before the connection is taken for dead (5 s).
        public var probeTimeout: Duration
        /// The first wait before connecting again (100 ms).
        public var initialDelay: Duration
        /// The longest wait between attempts (10 s).
        public var maximumDelay: Duration
        /// How many events a reader asks the table for at once (500).
        public var pageSize: Int
        /// How long a read of the table may take before it is abandoned and tried again (10 s): a
        /// query on a connection that died without a word would otherwise hold its topic back.
        public var readTimeout: Duration

        /// Options.
        public init(probeInterval: Duration = .seconds(5), probeTimeout: Duration = .seconds(5),
                    initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(10), pageSize: Int = 500,
                    readTimeout: Duration = .seconds(10)) {
            precondition(pageSize > 0, "pageSize must be positive")
            self.readTimeout = readTimeout
            self.probeInterval = probeInterval
            self.probeTimeout = probeTimeout
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.pageSize = pageSize
        }
    }

    /// Where the listening connection comes from.
    public enum Connection: Sendable {
        /// Leased from the log's `PostgresClient` (one of its connections, for as long as it lasts).
        case logClient
        /// A connection of its own, made with these settings (outside any pool).
        case configuration(PostgresConnection.Configuration)
    }

    /// Where the listener stands.
    public enum State: Sendable, Equatable {
        /// Not listening yet.
        case starting
        /// Listening on a live connection since this time.
        case listening(since: Date)
        /// No connection since `since`: `attempts` attempts have failed, the last with `lastError`.
        case reconnecting(since: Date, attempts: Int, lastError: String)
        /// Stopped (graceful shutdown or cancellation).
        case stopped

        /// Whether the listener is listening: the readiness of an instance that serves the log.
        public var isListening: Bool {
            if case .listening = self { return true }
            return false
        }
    }

    /// The log listened to.
    public let log: PostgresEventLog
    /// The settings.
    public let options: Options
    /// Where the listening connection comes from.
    public let connection: Connection
    private let logger: Logger
    private let stateSubject = CurrentValueSubject<State, Never>(.starting)
    private let lock = NIOLockedValueBox(Registry())

    private struct Registry {
        var readers: [String: TopicReader] = [:]
        var session: ListenSession?
        var state = State.starting
    }

    /// `sluice_log_listener_connected`: 1 while listening, 0 otherwise.
    private let connectedMetric: Gauge
    /// `sluice_log_listener_reconnects_total`: connections lost (or refused at the start).
    private let reconnectsMetric: Counter

    /// A listener for `log`'s topics, listening on `connection`. It logs through `logger`: each
    /// lost connection and each table read that fails at `warning`, listening again at `info`; its
    /// metrics are made by `metrics` (names in Server/README.md).
    public init(log: PostgresEventLog, connection: Connection = .logClient, options: Options = Options(),
                logger: Logger = Logger(label: "SluicePostgres.Listener"), metrics: any MetricsFactory = MetricsSystem.factory) {
        connectedMetric = Gauge(label: "sluice_log_listener_connected", factory: metrics)
        reconnectsMetric = Counter(label: "sluice_log_listener_reconnects_total", factory: metrics)
        self.log = log
        self.connection = connection
        self.options = options
        self.logger = logger
    }

    /// Where the listener stands now.
    public var state: State { lock.withLockedValue { $0.state } }

    /// The listener's state now and at each change.
    public var statePublisher: AnyPublisher<State, Never> { stateSubject.removeDuplicates().eraseToAnyPublisher() }

    /// `topic`'s entries after `start`, in order: events, and resets where the history broke. The
    /// first subscriber makes the topic's reader (and its `LISTEN`); it starts after `start` (later
    /// subscribers get what comes next). When the last subscriber cancels, the reader and the
    /// `LISTEN` go. Values are sent as they are read, without waiting for demand: subscribe with
    /// unlimited demand (an ``/SluiceFeed/EventFeed`` does).
    public func entries(of topic: String, after start: EventID) -> AnyPublisher<LogEntry<String>, Never> {
        Deferred { [self] in
            let (reader, made, session) = lock.withLockedValue { registry -> (TopicReader, Bool, ListenSession?) in
                if let reader = registry.readers[topic] {
                    reader.subscribers += 1
                    return (reader, false, nil)
                }
                let reader = TopicReader(topic: topic, after: start, log: log, pageSize: options.pageSize,
                                         readTimeout: options.readTimeout, logger: logger)
                reader.subscribers = 1
                registry.readers[topic] = reader
                return (reader, true, registry.session)
            }
            if made { session?.listen(reader) }
            return reader.subject.handleEvents(receiveCancel: { [self] in leave(reader) })
        }
        .eraseToAnyPublisher()
    }

    private func leave(_ reader: TopicReader) {
        let session = lock.withLockedValue { registry -> ListenSession?? in
            reader.subscribers -= 1
            guard reader.subscribers == 0, registry.readers[reader.topic] === reader else { return .none }
            registry.readers[reader.topic] = nil
            return .some(registry.session)
        }
        guard case .some(let current) = session else { return }
        current?.unlisten(reader.topic)
        reader.stop()
    }

    /// Listens until graceful shutdown or cancellation, reconnecting after every failure.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await self.listen()
        }
        set(.stopped)
        lock.withLockedValue { $0.readers.values.forEach { $0.stop() } }
    }

    private func listen() async {
        var attempts = 0
        var since = Date()
        while !Task.isCancelled {
            do {
                try await log.ensureTables()   // its readers read them
                switch connection {
                case .logClient:
                    try await log.client.withConnection { connection in
                        try await self.serve(connection) { attempts = 0 }
                    }
                case .configuration(let configuration):
                    let connection = try await PostgresConnection.connect(
                        configuration: configuration, id: Int.random(in: 1...Int.max), logger: logger)
                    do {
                        try await serve(connection) { attempts = 0 }
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                }
            } catch {
                if Task.isCancelled { return }
                if attempts == 0 { since = Date() }
                attempts += 1
                set(.reconnecting(since: since, attempts: attempts, lastError: "\(error)"))
                logger.warning("event log listener: connection lost or refused, reconnecting",
                               metadata: ["attempt": "\(attempts)", "error": "\(String(reflecting: error))"])
                var delay = options.initialDelay
                for _ in 1..<min(attempts, 30) where delay < options.maximumDelay { delay *= 2 }
                delay = min(delay, options.maximumDelay) * Double.random(in: 0.5...1)
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// Listens on `connection` for every topic until it fails.
    private func serve(_ connection: PostgresConnection, connected: () -> Void) async throws {
        let session = ListenSession(connection: connection, logger: logger)
        let readers = lock.withLockedValue { registry -> [TopicReader] in
            registry.session = session
            return Array(registry.readers.values)
        }
        defer {
            lock.withLockedValue { registry in if registry.session === session { registry.session = nil } }
            session.end()
        }
        for reader in readers { session.listen(reader) }
        connected()
        set(.listening(since: Date()))
        logger.info("event log listener: listening", metadata: ["topics": "\(readers.count)"])
        let options = options
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await session.waitForFailure() }
            group.addTask {
                while true {
                    try await Task.sleep(for: options.probeInterval)
                    try await self.probe(connection, timeout: options.probeTimeout)
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Reads the heads of the topics with readers within `timeout`, and wakes each reader that is
    /// behind its topic's head; otherwise closes the connection and throws. The query is not
    /// waited for once the probe has timed out or been cancelled: on a connection that died under
    /// it, it may never be answered nor failed, and a listener waiting for it would never listen
    /// again (nor stop).
    private func probe(_ connection: PostgresConnection, timeout: Duration) async throws {
        let readers = lock.withLockedValue { Array($0.readers.values) }
        let log = log
        let heads: [String: EventID]
        do {
            heads = try await withTimeout(timeout, onTimeout: { try? await connection.close() }) {
                try await log.heads(of: readers.map(\.topic), on: connection)
            }
        } catch is PostgresEventLogError where !Task.isCancelled {
            throw PostgresEventLogError(.unavailable, "the listening connection did not answer a probe within \(timeout)")
        }
        for reader in readers {
            if let head = heads[reader.topic], reader.isBehind(head) { reader.wake() }
        }
    }

    private func set(_ state: State) {
        let previous = lock.withLockedValue { registry in
            defer { registry.state = state }
            return registry.state
        }
        switch state {
        case .listening: connectedMetric.record(1)
        case .reconnecting:
            connectedMetric.record(0)
            if case .reconnecting = previous {} else { reconnectsMetric.increment() }
        case .starting, .stopped: connectedMetric.record(0)
        }
        stateSubject.send(state)
    }
}

/// The `LISTEN`s on one connection: a task per topic.
final class ListenSession: @unchecked Sendable {
    private struct State {
        var tasks: [String: Task<Void, Never>] = [:]
        var failure: (any Error)?
        var waiter: CheckedContinuation<Void, any Error>?
        var ended = false
    }

    private let connection: PostgresConnection
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Starts listening for `reader`'s topic; its reader catches up once `LISTEN` is in place.
    func listen(_ reader: TopicReader) {
        let connection = connection
        let task = Task {
            do {
                try await connection.listen(on: PostgresEventLog.channel(of: reader.topic)) { notifications in
                    reader.wake()   // LISTEN is in place: what was committed before it is in the table
                    for try await _ in notifications { reader.wake() }
                }
                if !Task.isCancelled { self.fail(PostgresEventLogError(message: "the notifications of \(reader.topic) ended")) }
            } catch {
                if !Task.isCancelled { self.fail(error) }
            }
        }
        let late = state.withLockedValue { state -> Bool in
            guard !state.ended else { return true }
            state.tasks[reader.topic]?.cancel()
            state.tasks[reader.topic] = task
            return false
        }
        if late { task.cancel() }
    }

    /// Stops listening for `topic` (`UNLISTEN`).
    func unlisten(_ topic: String) {
        state.withLockedValue { $0.tasks.removeValue(forKey: topic) }?.cancel()
    }

    /// Returns (throwing) when a `LISTEN` fails: the connection is lost.
    func waitForFailure() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let failure = state.withLockedValue { state -> (any Error)? in
                    if let failure = state.failure { return failure }
                    if state.ended { return CancellationError() }
                    state.waiter = continuation
                    return nil
                }
                if let failure { continuation.resume(throwing: failure) }
            }
        } onCancel: {
            self.fail(CancellationError())
        }
    }

    private func fail(_ error: any Error) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
            if state.failure == nil { state.failure = error }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    /// Ends every `LISTEN` of this session.
    func end() {
        let tasks = state.withLockedValue { state -> [Task<Void, Never>] in
            state.ended = true
            defer { state.tasks = [:] }
            return Array(state.tasks.values)
        }
        tasks.forEach { $0.cancel() }
        fail(CancellationError())
    }
}

/// One topic's reader: reads the table after its last position each time it is woken, one read at a
/// time (a wake-up during a read makes it read again), and sends what it read, in order.
final class TopicReader: @unchecked Sendable {
    let topic: String
    let subject = PassthroughSubject<LogEntry<String>, Never>()
    /// Guarded by the listener's registry lock.
    var subscribers = 0
    private let log: PostgresEventLog
    private let pageSize: Int
    private let readTimeout: Duration
    private let logger: Logger
    private let state: NIOLockedValueBox<State>

    private struct State {
        var after: EventID
        /// The positions and tags of the latest events read, in order: what is checked against the
        /// table to tell whether the history read is still the database's.
        var tags = Deque<(position: UInt64, tag: Int64)>()
        var reading = false
        var again = false
        var stopped = false
        var task: Task<Void, Never>?
    }

    init(topic: String, after: EventID, log: PostgresEventLog, pageSize: Int, readTimeout: Duration, logger: Logger) {
        self.topic = topic
        self.log = log
        self.pageSize = pageSize
        self.readTimeout = readTimeout
        self.logger = logger
        state = NIOLockedValueBox(State(after: after))
    }

    /// Reads what is new (now, or after the read under way).
    func wake() {
        let start = state.withLockedValue { state -> Bool in
            guard !state.stopped else { return false }
            if state.reading {
                state.again = true
                return false
            }
            state.reading = true
            return true
        }
        guard start else { return }
        let task = Task { await self.read() }
        state.withLockedValue { $0.task = task }
    }

    /// How many of the latest events' tags a reader keeps.
    static let keptTags = 256

    /// Whether `head` differs from what the reader has read: past it, or another epoch, or behind
    /// it (the history moved back: a failover lost commits).
    func isBehind(_ head: EventID) -> Bool {
        state.withLockedValue { head.epoch != $0.after.epoch || head.position != $0.after.position }
    }

    func stop() {
        state.withLockedValue { state -> Task<Void, Never>? in
            state.stopped = true
            return state.task
        }?.cancel()
    }

    private func read() async {
        var failures = 0
        while !Task.isCancelled {
            let read = state.withLockedValue { state -> (after: EventID, tags: [(position: UInt64, tag: Int64)])? in
                state.again = false
                return state.stopped ? nil : (state.after, state.tags.elementsArray)
            }
            guard let (after, tags) = read else { return }
            do {
                let page = try await log.page(of: topic, after: after, limit: pageSize, timeout: readTimeout)
                failures = 0
                if let moved = try await movedHistory(page, tags: tags) {
                    logger.warning("event log reader: the history moved (a failover lost commits?): its clients are reset",
                                   metadata: ["topic": "\(topic)", "after": "\(after)", "head": "\(page.head)",
                                              "reset": "\(moved)"])
                    subject.send(.reset(epoch: moved.epoch, after: moved.position, missed: nil))
                    state.withLockedValue { state in
                        state.after = moved
                        while let last = state.tags.last, last.position > moved.position { state.tags.removeLast() }
                    }
                    continue
                }
                let entries = page.entries
                var last = after
                for entry in entries {
                    switch entry {
                    case .event(let id, _): last = id
                    case .reset(let epoch, let position, _): last = EventID(epoch: epoch, position: position)
                    }
                    subject.send(entry)
                }
                let done = state.withLockedValue { state -> Bool in
                    state.after = last
                    if last.epoch != after.epoch { state.tags.removeAll() }
                    for event in page.events where event.position <= last.position {
                        state.tags.append((event.position, event.tag))
                        if state.tags.count > Self.keptTags { state.tags.removeFirst() }
                    }
                    if !entries.isEmpty { return false }   // there may be more
                    if state.again { return false }
                    state.reading = false
                    return true
                }
                if done { return }
            } catch {
                // The table could not be read (the database restarting, say): try again soon; the
                // listener wakes every reader once it listens again as well.
                if Task.isCancelled { break }
                failures += 1
                logger.warning("event log reader: read failed, trying again", metadata: ["topic": "\(topic)", "error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(min(100 * (1 << min(failures, 6)), 5_000)))
            }
        }
        state.withLockedValue { $0.reading = false }
    }

    /// Where the reader's clients go on from when the history it read is no longer the database's,
    /// `nil` while it is. It moved when the head is behind the reader's position, or the event at
    /// that position has another tag (its position was reused), or the topic has another epoch
    /// (another instance saw it move first). Then the last position whose tag still agrees is
    /// found among the kept ones, and the topic is given a new epoch if it still has the old one.
    private func movedHistory(_ page: LogPage, tags: [(position: UInt64, tag: Int64)]) async throws -> EventID? {
        let after = page.after
        guard let epoch = page.epoch, !after.isOrigin else { return nil }
        let known = tags.last.flatMap { $0.position == after.position ? $0.tag : nil }
        let reused = known != nil && page.tagAtAfter != nil && page.tagAtAfter != known
        if epoch == after.epoch {
            guard page.head < after.position || reused else { return nil }
        } else if tags.isEmpty {
            return nil   // another epoch, nothing to compare: the page's reset to the head says it
        }
        var agreed = min(page.head, tags.first.map { $0.position - 1 } ?? page.head)
        if !tags.isEmpty {
            let current = try await log.tags(of: topic, at: tags.map(\.position), timeout: readTimeout)
            for kept in tags {
                guard current[kept.position] == kept.tag else { break }
                agreed = kept.position
            }
        }
        agreed = min(agreed, page.head)
        let renewed = epoch == after.epoch ? try await log.renewEpoch(of: topic, from: epoch, agreed: agreed, timeout: readTimeout) : epoch
        if renewed == EventID.origin.epoch { return .origin }
        return EventID(epoch: renewed, position: agreed)
    }
}
#endif
