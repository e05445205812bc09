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

/// One subscription to an ``EventSource``: the ``EventSourceMachine`` behind a lock, and what its
/// actions do — connections, timers, delivery — performed after unlocking.
final class EventSourceDriver: Subscription, CustomStringConvertible, @unchecked Sendable {
    private let state: Locked<EventSourceMachine>
    private let request: URLRequest
    private let sessionConfiguration: URLSessionConfiguration
    private let session: URLSession?
    /// The connections' delegate queue: one at a time.
    private let queue: OperationQueue

    init(request: URLRequest, configuration: EventSource.Configuration, session: URLSession?, consumer: EventSourceConsumer) {
        #if canImport(Darwin)
        let pause = EventSourceMachine.PauseMethod.suspend
        #else
        let pause = EventSourceMachine.PauseMethod.disconnect
        #endif
        // A caller's `Last-Event-ID` is where the stream starts; the client's own replaces it later.
        let lastEventID = request.value(forHTTPHeaderField: "Last-Event-ID") ?? ""
        state = Locked(EventSourceMachine(configuration: configuration, consumer: consumer, pauseMethod: pause,
                                         lastEventID: lastEventID))
        var request = request
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (seconds, attoseconds) = configuration.idleTimeout.components
        request.timeoutInterval = Double(seconds) + Double(attoseconds) / 1e18
        self.request = request
        self.session = session
        let base = session?.configuration ?? URLSessionConfiguration.default
        base.requestCachePolicy = .reloadIgnoringLocalCacheData
        base.urlCache = nil
        sessionConfiguration = base
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "SluiceEventSource"
    }

    /// "EventSource", as `print()` shows the subscription.
    var description: String { "EventSource" }

    /// Events received and not yet delivered (for tests).
    var bufferedCount: Int { state.withLock { $0.buffer.count } }

    /// The last event ID (for tests).
    var lastEventID: String { state.withLock { $0.lastEventID } }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "EventSource: a subscriber must request a positive demand (not .none)")
        perform(state.withLock { $0.request(demand) })
    }

    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    // MARK: Performing actions

    private func perform(_ actions: EventSourceMachine.Actions) {
        actions.cancel?.cancel()
        actions.suspend?.suspend()
        actions.resume?.resume()
        if let (id, lastEventID) = actions.connect {
            connect(id: id, lastEventID: lastEventID)
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

    private func connect(id: UInt64, lastEventID: String) {
        var request = self.request
        if !lastEventID.isEmpty {
            request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID")
        }
        let connection = EventSourceConnection(id: id, driver: self)
        let task: URLSessionDataTask
        let ownSession: URLSession?
        #if canImport(Darwin)
        if let session {
            task = session.dataTask(with: request)
            task.delegate = connection
            ownSession = nil
        } else {
            ownSession = URLSession(configuration: sessionConfiguration, delegate: connection, delegateQueue: queue)
            task = ownSession!.dataTask(with: request)
        }
        #else
        // FoundationNetworking calls a task's own delegate only for tasks with a completion
        // handler: a caller's session lends its configuration to a session of the connection's.
        ownSession = URLSession(configuration: sessionConfiguration, delegate: connection, delegateQueue: queue)
        task = ownSession!.dataTask(with: request)
        #endif
        if state.withLock({ $0.attach(task, id: id) }) {
            task.resume()
        } else {
            task.cancel()
        }
        ownSession?.finishTasksAndInvalidate()   // lets go of the delegate once the task ends
    }

    // MARK: The connection's events (on the delegate queue)

    func responded(id: UInt64, response: URLResponse) -> Bool {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 200
        let contentType = http?.value(forHTTPHeaderField: "Content-Type") ?? response.mimeType
        // Retry-After in seconds (its HTTP-date form is not used).
        let retryAfter = http?.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .map { Duration.seconds($0) }
        let (allow, actions) = state.withLock {
            $0.responded(id: id, status: status, contentType: contentType, retryAfter: retryAfter)
        }
        perform(actions)
        return allow
    }

    func received(id: UInt64, _ data: Data) {
        perform(state.withLock { $0.received(id: id, data) })
    }

    func completed(id: UInt64, error: (any Error)?) {
        perform(state.withLock { $0.completed(id: id, error: error) })
    }
}

/// One HTTP request of a subscription: the delegate of its data task, forwarding to the driver
/// with its id (the driver ignores a connection it has moved on from).
final class EventSourceConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let id: UInt64
    let driver: EventSourceDriver

    init(id: UInt64, driver: EventSourceDriver) {
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
        driver.completed(id: id, error: error)
    }
}
