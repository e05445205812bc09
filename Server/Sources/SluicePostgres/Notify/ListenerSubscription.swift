#if Server
import Logging
import NIOCore
import PostgresNIO
import Sluice
import NIOConcurrencyHelpers

/// The subscription of ``PostgresNotifications``: the ``NotificationBuffer`` behind a lock, a
/// task that keeps a connection listening, and a drain that delivers one event at a time outside
/// the lock (an event that arrives during a delivery is left to the thread delivering).
final class ListenerSubscription<Payload, Downstream: Subscriber>: Subscription, CustomStringConvertible,
    @unchecked Sendable
where Downstream.Input == PostgresNotificationEvent<Payload>, Downstream.Failure == any Error {
    typealias Event = PostgresNotificationEvent<Payload>

    private struct State {
        var downstream: Downstream?
        var buffer: NotificationBuffer<Event>
        var failure: (any Error)?
        var delivering = false
        var listener: Task<Void, Never>?
        var started = false
    }

    private let publisher: PostgresNotifications<Payload>
    private let state: NIOLockedValueBox<State>

    init(publisher: PostgresNotifications<Payload>, downstream: Downstream) {
        self.publisher = publisher
        state = NIOLockedValueBox(State(downstream: downstream, buffer: NotificationBuffer(capacity: publisher.options.bufferSize)))
    }

    var description: String { "PostgresNotifications" }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "Demand must be greater than zero: request(.none) is not allowed")
        let start = state.withLockedValue { state -> Bool in
            guard state.downstream != nil else { return false }
            state.buffer.add(demand)
            defer { state.started = true }
            return !state.started
        }
        if start {
            let work = UncheckedWork { [self] in await listen() }
            let task = Task { await work.run() }
            let cancelledMeanwhile = state.withLockedValue { state -> Bool in
                guard state.downstream != nil else { return true }
                state.listener = task
                return false
            }
            if cancelledMeanwhile { task.cancel() }
        }
        drain()
    }

    func cancel() {
        let listener = state.withLockedValue { state -> Task<Void, Never>? in
            state.downstream = nil
            defer { state.listener = nil }
            return state.listener
        }
        listener?.cancel()
    }

    // MARK: Delivery

    private func enqueue(_ event: Event) {
        let live = state.withLockedValue { state -> Bool in
            guard state.downstream != nil else { return false }
            state.buffer.append(event)
            return true
        }
        if live { drain() }
    }

    private func fail(_ error: any Error) {
        state.withLockedValue { state in
            if state.failure == nil { state.failure = error }
        }
        drain()
    }

    private enum Step {
        case stop
        case deliver(Downstream, Event)
        case fail(Downstream, any Error)
    }

    private func drain() {
        let mine = state.withLockedValue { state -> Bool in
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard mine else { return }
        while true {
            let step = state.withLockedValue { state -> Step in
                guard let downstream = state.downstream else {
                    state.delivering = false
                    return .stop
                }
                if let failure = state.failure {
                    state.downstream = nil
                    state.delivering = false
                    return .fail(downstream, failure)
                }
                guard let event = state.buffer.next(gap: { .gap(.dropped(count: $0)) }) else {
                    state.delivering = false
                    return .stop
                }
                return .deliver(downstream, event)
            }
            switch step {
            case .stop:
                return
            case .fail(let downstream, let error):
                downstream.receive(completion: .failure(error))
                return
            case .deliver(let downstream, let event):
                let more = downstream.receive(event)
                if more > .none { state.withLockedValue { $0.buffer.add(more) } }
            }
        }
    }

    // MARK: The listening connection

    /// Connects, listens and delivers until cancelled, connecting again when the connection is
    /// lost; fails the subscriber on a refusal or after too many attempts in a row.
    private func listen() async {
        let policy = publisher.options.reconnect
        var failedAttempts = 0              // connection attempts failed in a row
        var lostWith: (any Error)?          // why the last listening connection ended
        var connectionID = 0
        while !Task.isCancelled {
            connectionID += 1
            var connection: PostgresConnection?
            var listened = false
            do {
                let (loop, configuration, id, logger) = (publisher.group.next(), publisher.configuration, connectionID, publisher.logger)
                let opened = try await withTimeout(publisher.options.timeout) {
                    let made = try await PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger).get()
                    if Task.isCancelled {   // too late: this attempt has failed
                        try? await made.close()
                        throw CancellationError()
                    }
                    return made
                }
                connection = opened
                try await opened.listen(on: publisher.channel) { notifications in
                    listened = true
                    if let lostWith {
                        enqueue(.gap(.reconnected(after: lostWith, attempts: failedAttempts + 1)))
                    } else {
                        enqueue(.listening)
                    }
                    failedAttempts = 0
                    lostWith = nil
                    // A probe that goes unanswered closes the connection, which ends the notifications.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        if let interval = publisher.options.probeInterval {
                            let timeout = publisher.options.timeout
                            group.addTask { try await probeListening(opened, every: interval, timeout: timeout, logger: logger) }
                        }
                        for try await notification in notifications {
                            let text = notification.payload
                            do { enqueue(.notification(try publisher.decode(text))) }
                            catch { enqueue(.undecodable(text, error)) }
                        }
                        group.cancelAll()
                        try await group.waitForAll()   // a probe's failure says why they ended
                    }
                }
                if !Task.isCancelled { lostWith = PostgresFailure(message: "the server ended the listening connection") }
            } catch {
                if Task.isCancelled {
                    await close(connection, unlisten: true)
                    return
                }
                let failure = PostgresFailure(error)
                if failure.isRefusal {
                    await close(connection, unlisten: false)
                    return fail(failure)
                }
                if listened {
                    lostWith = failure
                } else {
                    failedAttempts += 1
                    if let limit = policy.maximumAttempts, failedAttempts >= limit {
                        await close(connection, unlisten: false)
                        return fail(failure)
                    }
                }
            }
            if Task.isCancelled {
                await close(connection, unlisten: true)
                return
            }
            await close(connection, unlisten: false)
            publisher.logger.info("PostgreSQL listener connecting again", metadata: [
                "channel": "\(publisher.channel)", "attempt": "\(failedAttempts + 1)",
                "error": "\(lostWith.map { PostgresFailure.describe($0) } ?? "none")",
            ])
            try? await Task.sleep(for: policy.delay(before: failedAttempts + 1))
        }
    }

    /// Stops listening (when asked: the subscriber cancelled) and closes the connection, in a task
    /// of its own: the listener's task is cancelled by then, and a cancelled task's queries fail.
    /// An `UNLISTEN` unanswered within the options' `timeout` is given up (the connection closes).
    private func close(_ connection: PostgresConnection?, unlisten: Bool) async {
        guard let connection else { return }
        let channel = publisher.channel
        let logger = publisher.logger
        let timeout = publisher.options.timeout
        await Task {
            if unlisten {
                let quoted = "\"" + channel.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                _ = try? await withTimeout(timeout, onTimeout: { try? await connection.close() }) {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: "UNLISTEN \(quoted)"), logger: logger)
                }
            }
            try? await connection.close()
        }.value
    }
}

/// Probes the listening `connection` every `interval` until cancelled; throws once a probe goes
/// unanswered within `timeout`, having closed the connection (a query on a half-open connection is
/// never answered nor failed: it is not waited for).
private func probeListening(_ connection: PostgresConnection, every interval: Duration, timeout: Duration, logger: Logger) async throws {
    while true {
        do { try await Task.sleep(for: interval) } catch { return }   // cancelled: the listening ended
        do {
            try await withTimeout(timeout, onTimeout: { try? await connection.close() }) {
                _ = try await connection.query("SELECT 1", logger: logger)
            }
        } catch is PostgresEventLogError {
            throw PostgresFailure(message: "the listening connection did not answer a probe within \(timeout)")
        } catch {
            return   // cancelled, or the connection failed: the listening ends by itself
        }
    }
}

/// Work for a task of its own, from a generic class that guards its own state: capturing the
/// class in the task's closure would capture its generic parameters' types, which need not be
/// sendable.
struct UncheckedWork: @unchecked Sendable {
    let run: () async -> Void
    init(_ run: @escaping () async -> Void) { self.run = run }
}
#endif
