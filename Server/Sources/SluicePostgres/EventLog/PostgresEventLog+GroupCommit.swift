#if Server
import DequeModule
import NIOConcurrencyHelpers
import PostgresNIO
import SluiceFeed

/// How a ``PostgresEventLog`` commits standalone appends (``PostgresEventLog/append(_:to:idempotencyKey:)``
/// and ``PostgresEventLog/append(contentsOf:to:idempotencyKey:)``) made at the same time: together, in
/// one durable transaction — one round trip and one WAL flush for all of them.
///
/// A lone append is committed at once; appends made while a group is being committed queue and
/// form the next group (taken ``linger`` after the last, while appends come together), up to
/// ``maximumEvents`` events and ``maximumBytes`` of payload, keyed or not: a group is one
/// statement, whatever its topics and keys. Topics are shared out among ``lanes``, each committing
/// one group at a time, in the order its appends came: the positions of a topic's appends follow
/// the order they were made in, and groups of different lanes share no topic. Each
/// caller is answered with its own ids once the group has committed (a keyed repeat with its key's
/// first ids, a reused key with its own error); when the group fails, every caller of the group
/// gets the error (``PostgresEventLogError/Kind/outcomeUnknown`` when the answer was lost: retry
/// with the same idempotency key). Appends in a caller's transaction are never grouped.
public struct GroupCommit: Sendable {
    /// The most events in one group (1,000).
    public var maximumEvents: Int
    /// The most payload bytes in one group (8 MiB): an append larger than that is a group alone.
    public var maximumBytes: Int

    /// How long the committer waits, before it takes a group, for more appends to join it — only
    /// while appends come together (the last group held more than one), so that a lone caller's
    /// appends never wait (200 µs: with 64 producers to one topic, about 21,000 appends per second
    /// here, against 16,000 without).
    public var linger: Duration

    /// How many groups may be committed at once, each by a lane of its own, on a connection of
    /// its own (2): a topic's appends always go to the same lane, so two lanes' groups share no
    /// topic. One lane commits while the other's group is being gathered and sent, so that the
    /// database's work on a group overlaps the round trips of the next.
    public var lanes: Int

    /// How many appends may wait in a lane for their group, at most (10,000): while the database is
    /// slower than the producers, or cannot be reached, one more is refused at once with
    /// ``PostgresEventLogError/Kind/busy`` — nothing appended, try again later — rather than queued
    /// without end. (An append whose caller is cancelled while it waits leaves the queue: it is
    /// not appended, and the caller gets `CancellationError`.)
    public var maximumWaiting: Int

    /// Groups of at most `maximumEvents` events and `maximumBytes` bytes, each taken `linger` after
    /// its lane is ready for it, `lanes` of them committed at once, at most `maximumWaiting` appends
    /// waiting in a lane.
    public init(maximumEvents: Int = 1_000, maximumBytes: Int = 8 << 20, linger: Duration = .microseconds(200), lanes: Int = 2,
                maximumWaiting: Int = 10_000) {
        precondition(maximumEvents > 0 && maximumBytes > 0, "a group holds at least one event")
        precondition(maximumWaiting > 0, "maximumWaiting must be positive")
        self.maximumWaiting = maximumWaiting
        precondition(linger >= .zero, "linger must not be negative")
        precondition(lanes > 0, "appends need a lane")
        self.maximumEvents = maximumEvents
        self.maximumBytes = maximumBytes
        self.linger = linger
        self.lanes = lanes
    }
}

/// The queues of standalone appends, one per lane, and the task of each lane that commits its
/// queue group by group while it has appends.
final class GroupCommitter: Sendable {
    struct Request: Sendable {
        let append: Append
        let bytes: Int
        let answer: CheckedContinuation<[EventID]?, any Error>
        /// The request's number in its lane, by which a cancelled caller finds it.
        let number: UInt64
    }

    private struct State {
        var queue = Deque<Request>()
        var committing = false
        var numbered: UInt64 = 0
        /// Requests numbered and not yet queued (or refused), and those of them whose callers were
        /// cancelled meanwhile.
        var admitting: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
    }

    let settings: GroupCommit
    private let lanes: [NIOLockedValueBox<State>]

    init(settings: GroupCommit) {
        self.settings = settings
        lanes = (0..<settings.lanes).map { _ in NIOLockedValueBox(State()) }
    }

    /// Queues an append; returns its ids once its group has committed (`nil`: its key was used
    /// before with something else).
    /// Throws ``PostgresEventLogError/Kind/busy`` when ``GroupCommit/maximumWaiting`` appends wait
    /// in its lane already, and `CancellationError` when the caller is cancelled while it waits
    /// (it leaves the queue, unappended; once its group is being committed, it waits for it).
    func append(_ append: Append, log: PostgresEventLog) async throws -> [EventID]? {
        let lane = lanes.count == 1 ? lanes[0] : lanes[Int(UInt(bitPattern: append.topic.hashValue) % UInt(lanes.count))]
        let number = lane.withLockedValue { state -> UInt64 in
            defer { state.numbered += 1 }
            state.admitting.insert(state.numbered)
            return state.numbered
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { answer in
                let request = Request(append: append, bytes: append.payloads.reduce(0) { $0 + $1.utf8.count }, answer: answer, number: number)
                enum Admission { case queued(start: Bool), busy, cancelled }
                let admission = lane.withLockedValue { state -> Admission in
                    state.admitting.remove(number)
                    if state.cancelled.remove(number) != nil { return .cancelled }
                    guard state.queue.count < settings.maximumWaiting else { return .busy }
                    state.queue.append(request)
                    defer { state.committing = true }
                    return .queued(start: !state.committing)
                }
                switch admission {
                case .queued(let start):
                    if start { Task { await self.commitGroups(of: lane, log) } }
                case .busy:
                    answer.resume(throwing: PostgresEventLogError(.busy, "\(settings.maximumWaiting) appends wait for the database already"))
                case .cancelled:
                    answer.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let left = lane.withLockedValue { state -> Request? in
                guard let index = state.queue.firstIndex(where: { $0.number == number }) else {
                    if state.admitting.contains(number) { state.cancelled.insert(number) }   // not queued yet
                    return nil   // else its group is being committed: it waits for the answer
                }
                return state.queue.remove(at: index)
            }
            left?.answer.resume(throwing: CancellationError())
        }
    }

    /// Each lane now: how many appends wait in its queue, and whether a group of it is being
    /// gathered or committed.
    var lanesNow: [(waiting: Int, committing: Bool)] {
        lanes.map { lane in lane.withLockedValue { ($0.queue.count, $0.committing) } }
    }

    /// Commits the lane's groups one after the other until its queue is empty.
    private func commitGroups(of lane: NIOLockedValueBox<State>, _ log: PostgresEventLog) async {
        var gathered = false   // whether the last group had more than one append: appends come together
        while true {
            if gathered, settings.linger > .zero { try? await Task.sleep(for: settings.linger) }
            guard let group = nextGroup(of: lane) else { return }
            gathered = group.count > 1
            do {
                let ids = try await log.commit(group.map(\.append))
                for (request, ids) in zip(group, ids) { request.answer.resume(returning: ids) }
            } catch {
                group.forEach { $0.answer.resume(throwing: error) }
            }
        }
    }

    /// The lane's next group: requests from the head of its queue within the bounds (at least
    /// one), or `nil` when the queue is empty (the lane's task then stops).
    private func nextGroup(of lane: NIOLockedValueBox<State>) -> [Request]? {
        lane.withLockedValue { state -> [Request]? in
            guard !state.queue.isEmpty else {
                state.committing = false
                return nil
            }
            var group: [Request] = []
            var (events, bytes) = (0, 0)
            while let next = state.queue.first,
                  group.isEmpty || (events + next.append.payloads.count <= settings.maximumEvents && bytes + next.bytes <= settings.maximumBytes) {
                group.append(state.queue.removeFirst())
                events += next.append.payloads.count
                bytes += next.bytes
            }
            return group
        }
    }
}

#endif
