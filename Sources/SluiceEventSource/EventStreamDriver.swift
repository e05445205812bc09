import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
// Apple's Combine on Apple's systems; Sluice elsewhere (not `canImport(Combine)` alone: off
// Apple's systems the package's own `Combine` module may be built beside this one).
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

/// One subscription to an ``EventSource`` or an ``EventSocket``: the ``EventStreamMachine`` behind
/// a lock, and what its actions do — connections, timers, delivery — performed after unlocking.
/// The transport opens connections (`connect`) and reports what they do with the connection's id.
final class EventStreamDriver<Decoder: EventStreamDecoder>: Subscription, CustomStringConvertible, @unchecked Sendable {
    typealias Machine = EventStreamMachine<Decoder>
    /// Opens connection `id` of `driver`, resuming after the last event ID (empty: none), with
    /// `topics` named in its URL (a socket of topics).
    typealias Connect = @Sendable (_ driver: EventStreamDriver, _ id: UInt64, _ lastEventID: String, _ topics: [String]) -> Void

    private let state: Locked<Machine>
    /// The connection last suspended, and not resumed since; taken while a pause is applied.
    private let suspended = Locked<UInt64?>(nil)
    /// Held while the outbox is sent, so that messages leave in the order they were queued.
    private let sending = Locked(())
    private let name: String
    private let connect: Connect
    /// Told what the connections do.
    private let onConnectionEvent: (@Sendable (EventSource.ConnectionEvent) -> Void)?

    init(name: String, configuration: EventSource.Configuration, consumer: EventSourceConsumer,
         lastEventID: String, topics: [String] = [], onConnectionEvent: (@Sendable (EventSource.ConnectionEvent) -> Void)?,
         connect: @escaping Connect) {
        self.name = name
        self.connect = connect
        self.onConnectionEvent = onConnectionEvent
        state = Locked(Machine(configuration: configuration, consumer: consumer, lastEventID: lastEventID, topics: topics))
    }

    /// "EventSource" (or "EventSocket"), as `print()` shows the subscription.
    var description: String { name }

    /// Events received and not yet delivered (for tests).
    var bufferedCount: Int { state.withLock { $0.buffer.count } }

    /// The last event ID (for tests).
    var lastEventID: String { state.withLock { $0.lastEventID } }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "\(name): a subscriber must request a positive demand (not .none)")
        perform(state.withLock { $0.request(demand) })
    }

    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    /// Follows `topic` too (a socket of topics), after its event `after` if given.
    func subscribe(_ topic: String, after: String?) {
        perform(state.withLock { $0.subscribe(topic, after: after) })
    }

    /// Stops following `topic` (a socket of topics).
    func unsubscribe(_ topic: String) {
        perform(state.withLock { $0.unsubscribe(topic) })
    }

    // MARK: Performing actions

    private func perform(_ actions: Machine.Actions) {
        // Reported before the next attempt is started or scheduled: one report at a time, in order.
        if let onConnectionEvent {
            for report in actions.reports { onConnectionEvent(report) }
        }
        actions.cancel?.cancel()
        if let (connection, id) = actions.pause { applyPause(connection, id: id) }
        if actions.send { sendOutbox() }
        if let (id, lastEventID, topics) = actions.connect {
            connect(self, id, lastEventID, topics)
        }
        if let (id, delay) = actions.reconnect {
            let (seconds, attoseconds) = delay.components
            let nanoseconds = Int(clamping: seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(max(0, nanoseconds))) { [self] in
                perform(state.withLock { $0.timerFired(id: id) })
            }
        }
        if actions.drain { drain() }
    }

    /// Suspends or resumes connection `id` as the machine's phase is now. One caller at a time
    /// compares the phase with what was last applied, so the last word is always the phase's:
    /// a resume performed before a suspend that was decided earlier cannot leave the connection
    /// suspended while the machine reads on. (Its lock is held over `suspend()` and `resume()`,
    /// which only record the request and never call back.)
    func applyPause(_ connection: any EventStreamConnection, id: UInt64) {
        suspended.withLock { suspended in
            let wanted = state.withLock { $0.isSuspended(id) }
            if wanted && suspended != id {
                connection.suspend()
                suspended = id
            } else if !wanted && suspended == id {
                connection.resume()
                suspended = nil
            }
        }
    }

    /// Sends what the machine's outbox holds, in order: one caller at a time takes it and sends it
    /// (the lock is held over `send(text:)`, which writes and never calls back).
    private func sendOutbox() {
        sending.withLock { _ in
            guard let (connection, messages) = state.withLock({ $0.takeOutbox() }) else { return }
            for message in messages { connection.send(text: message) }
        }
    }

    /// Delivers what is buffered while there is demand; one caller at a time (the machine's
    /// `delivering` flag), so a subscriber is never called on two threads at once.
    private func drain() {
        var more = Subscribers.Demand.none
        while true {
            switch state.withLock({ $0.nextStep(adding: more) }) {
            case .deliver(let event, let consumer):
                more = consumer.receive(event)
            case .complete(let completion, let consumer):
                consumer.complete(completion)
                return
            case .stop(let actions):
                perform(actions)
                return
            }
        }
    }

    // MARK: What the connections report

    /// Connection `id`'s connection exists; `false` if it is no longer wanted (it is then cancelled).
    func attach(_ connection: any EventStreamConnection, id: UInt64) -> Bool {
        state.withLock { $0.attach(connection, id: id) }
    }

    /// Connection `id` got its server's answer; returns whether to read on.
    func responded(id: UInt64, _ answer: StreamAnswer) -> Bool {
        let (allow, actions) = state.withLock { $0.responded(id: id, answer) }
        perform(actions)
        return allow
    }

    /// Connection `id` received bytes (a WebSocket: one message).
    func received(id: UInt64, _ data: Data) {
        perform(state.withLock { $0.received(id: id, data) })
    }

    /// Connection `id` ended, with `error` if it failed: the stream reconnects.
    func completed(id: UInt64, error: EventSourceError?) {
        perform(state.withLock { $0.completed(id: id, error: error) })
    }

    /// Connection `id` was ended by its server with `answer` (see ``EventStreamMachine/ended(id:with:)``).
    func ended(id: UInt64, with answer: StreamAnswer) {
        perform(state.withLock { $0.ended(id: id, with: answer) })
    }
}

/// How an ``EventSource`` opens its connections: a `URLSessionDataTask` each, whose delegate
/// (``EventSourceConnection``) reports to the driver; off Apple's systems, for an `http:` URL
/// (and an `https:` one with the package trait `TLS`) without a session of the caller's, an
/// ``HTTPStreamConnection`` (which can pause a stream without closing it).
struct EventSourceConnector: @unchecked Sendable {   // its configuration and queue are only read
    typealias Driver = EventStreamDriver<EventStreamParser>
    private let request: URLRequest
    private let configuration: EventSource.Configuration
    private let sessionConfiguration: URLSessionConfiguration
    private let session: URLSession?
    /// The connections' delegate queue: one at a time.
    private let queue: OperationQueue

    init(request: URLRequest, configuration: EventSource.Configuration, session: URLSession?) {
        var request = request
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.timeoutInterval = configuration.idleTimeout.seconds
        self.request = request
        self.configuration = configuration
        self.session = session
        let base = session?.configuration ?? URLSessionConfiguration.default
        base.requestCachePolicy = .reloadIgnoringLocalCacheData
        base.urlCache = nil
        sessionConfiguration = base
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "SluiceEventSource"
    }

    /// A driver of a subscription whose connections this connector opens.
    static func driver(for source: EventSource, consumer: EventSourceConsumer) -> Driver {
        let connector = EventSourceConnector(request: source.request, configuration: source.configuration, session: source.session)
        // A caller's `Last-Event-ID` is where the stream starts; the client's own replaces it later.
        let lastEventID = source.request.value(forHTTPHeaderField: "Last-Event-ID") ?? ""
        return Driver(name: "EventSource", configuration: source.configuration, consumer: consumer, lastEventID: lastEventID,
                      topics: source.topics, onConnectionEvent: source.onConnectionEvent,
                      connect: { driver, id, lastEventID, _ in connector.connect(driver: driver, id: id, lastEventID: lastEventID) })
    }

    func connect(driver: Driver, id: UInt64, lastEventID: String) {
        var request = self.request
        if !lastEventID.isEmpty {
            request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID")
        }
        #if !canImport(Darwin)
        if session == nil && HTTPStreamConnection.serves(request) {
            let connection = HTTPStreamConnection(id: id, driver: driver, request: request, idleTimeout: configuration.idleTimeout,
                                                  tls: configuration.tls, handOver: { dataTask(for: $0, driver: driver, id: id) })
            if driver.attach(connection, id: id) { connection.start() }
            return
        }
        #endif
        if request.url?.scheme?.lowercased() == "https" && !configuration.tls.isDefault {
            // A data task's TLS is not the options': fail rather than trust otherwise than asked.
            DispatchQueue.global().async { driver.ended(id: id, with: .failure(.tlsOptionsUnavailable)) }
            return
        }
        let (task, ownSession) = dataTask(for: request, driver: driver, id: id)
        if driver.attach(task, id: id) {
            task.resume()
        } else {
            task.cancel()
        }
        ownSession?.finishTasksAndInvalidate()   // lets go of the delegate once the task ends
    }

    /// A data task for `request` whose delegate reports to `driver` as connection `id`, and the
    /// session made for it (to be let go once the task is resumed or cancelled).
    private func dataTask(for request: URLRequest, driver: Driver, id: UInt64) -> (task: URLSessionDataTask, session: URLSession?) {
        let connection = EventSourceConnection(id: id, driver: driver)
        #if canImport(Darwin)
        if let session {
            let task = session.dataTask(with: request)
            task.delegate = connection
            return (task, nil)
        }
        #endif
        // FoundationNetworking calls a task's own delegate only for tasks with a completion
        // handler: a caller's session lends its configuration to a session of the connection's.
        let ownSession = URLSession(configuration: sessionConfiguration, delegate: connection, delegateQueue: queue)
        return (ownSession.dataTask(with: request), ownSession)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// What an ``EventSource``'s data task reports, read as the driver's terms.
extension EventStreamDriver where Decoder == EventStreamParser {
    func responded(id: UInt64, response: URLResponse) -> Bool {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 200
        let contentType = http?.value(forHTTPHeaderField: "Content-Type") ?? response.mimeType
        let retryAfter = StreamAnswer.retryAfter(http?.value(forHTTPHeaderField: "Retry-After"))
        return responded(id: id, .eventStream(status: status, contentType: contentType, retryAfter: retryAfter))
    }
}

/// One HTTP request of a subscription: the delegate of its data task, forwarding to the driver
/// with its id (the driver ignores a connection it has moved on from).
final class EventSourceConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let id: UInt64
    let driver: EventStreamDriver<EventStreamParser>

    init(id: UInt64, driver: EventStreamDriver<EventStreamParser>) {
        self.id = id
        self.driver = driver
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        completionHandler(driver.responded(id: id, response: response) ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        driver.received(id: id, data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        driver.completed(id: id, error: error.map { EventSourceError(transportError: $0, url: task.originalRequest?.url) })
    }
}
