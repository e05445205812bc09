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

/// The state of one subscription to an ``EventSource``: its connection, parser, buffer, demand and
/// consumer. Its transitions return the ``Actions`` that the ``EventSourceDriver`` performs after
/// unlocking; it calls nothing outside itself.
struct EventSourceMachine {
    /// Where the subscription's connection stands.
    enum Phase: Equatable {
        /// No demand yet: nothing requested from the server.
        case idle
        /// Request `id` is sent; no response yet.
        case connecting(UInt64)
        /// Request `id` answered with an event stream, being read.
        case streaming(UInt64)
        /// Request `id`'s task is suspended: the buffer is full (Apple's systems).
        case suspended(UInt64)
        /// The buffer was full and the connection was closed; it is reopened, with `Last-Event-ID`,
        /// once the subscriber has taken half of the buffer (FoundationNetworking cannot suspend a
        /// transfer).
        case disconnected
        /// Waiting for timer `id` before the next attempt.
        case waiting(UInt64)
        /// Ended: completed, failed or cancelled.
        case finished
    }

    /// How a full buffer stops the reading of the stream.
    enum PauseMethod {
        /// `URLSessionTask.suspend()`, and `resume()` when there is room.
        case suspend
        /// Closing the connection, and reconnecting with `Last-Event-ID` when there is room; for a
        /// stream without an event ID yet (nothing to resume from), reading on and holding the
        /// bytes unparsed, up to the configuration's `maximumEventSize`.
        case disconnect
    }

    /// What the driver does after a transition, in this order.
    struct Actions {
        /// Open connection `id`, resuming after `lastEventID` if it is not empty.
        var connect: (id: UInt64, lastEventID: String)?
        /// Cancel this task (a connection given up, or the subscription cancelled).
        var cancel: URLSessionDataTask?
        /// Suspend / resume this task.
        var suspend: URLSessionDataTask?
        var resume: URLSessionDataTask?
        /// Start timer `id`: the next attempt after `delay`.
        var reconnect: (id: UInt64, delay: Duration)?
        /// Run the delivery loop (this caller has become the one delivering).
        var drain = false
    }

    /// What the delivery loop does next.
    enum Step {
        case deliver(EventSource.Event, EventSourceConsumer)
        case complete(Subscribers.Completion<EventSourceError>, EventSourceConsumer)
        case stop(Actions)
    }

    let configuration: EventSource.Configuration
    let pauseMethod: PauseMethod
    private(set) var phase = Phase.idle
    private(set) var buffer: [EventSource.Event] = []
    private var demand = Subscribers.Demand.none
    private var delivering = false
    private var consumer: EventSourceConsumer?
    private var completion: Subscribers.Completion<EventSourceError>?
    private var parser = EventStreamParser()
    private var task: URLSessionDataTask?
    private var nextID: UInt64 = 0
    /// Consecutive failed attempts (no event stream in answer).
    private(set) var failures = 0
    /// The reconnection time: the configuration's until the server sends `retry:`.
    private(set) var reconnectionTime: Duration

    init(configuration: EventSource.Configuration, consumer: EventSourceConsumer, pauseMethod: PauseMethod,
         lastEventID: String = "") {
        self.configuration = configuration
        parser = EventStreamParser(lastEventID: lastEventID)
        self.consumer = consumer
        self.pauseMethod = pauseMethod
        reconnectionTime = configuration.reconnectionTime
    }

    /// The last event ID: what a reconnection sends as `Last-Event-ID`.
    var lastEventID: String { parser.lastEventID }

    private mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    // MARK: The subscriber's side

    /// The subscriber asks for `more` events; the first demand opens the connection.
    mutating func request(_ more: Subscribers.Demand) -> Actions {
        var actions = Actions()
        guard phase != .finished || completion != nil else { return actions }
        demand += more
        if phase == .idle {
            let id = makeID()
            phase = .connecting(id)
            actions.connect = (id, parser.lastEventID)
        }
        settle(&actions)
        return actions
    }

    /// The subscriber cancels: everything is let go at once.
    mutating func cancel() -> Actions {
        var actions = Actions()
        actions.cancel = task
        task = nil
        phase = .finished
        consumer = nil
        completion = nil
        buffer = []
        return actions
    }

    /// The delivery loop's next step, after the previous delivery's receiver asked for `more`.
    mutating func nextStep(adding more: Subscribers.Demand) -> Step {
        demand += more
        guard let consumer else {
            delivering = false
            return .stop(Actions())
        }
        if demand > .none, !buffer.isEmpty {
            demand -= 1
            let event = buffer.removeFirst()
            return .deliver(event, consumer)
        }
        if buffer.isEmpty, let completion {
            self.consumer = nil
            self.completion = nil
            delivering = false
            return .complete(completion, consumer)
        }
        delivering = false
        var actions = Actions()
        settle(&actions)
        return .stop(actions)
    }

    // MARK: The connection's side

    /// Connection `id`'s task exists; `false` if it is no longer wanted (cancel it).
    mutating func attach(_ task: URLSessionDataTask, id: UInt64) -> Bool {
        guard phase == .connecting(id) else { return false }
        self.task = task
        return true
    }

    /// Connection `id` got its response head. Returns whether to go on reading the body.
    /// `retryAfter`: the delay a `Retry-After` header asked for.
    mutating func responded(id: UInt64, status: Int, contentType: String?,
                            retryAfter: Duration? = nil) -> (allow: Bool, actions: Actions) {
        var actions = Actions()
        guard phase == .connecting(id) else { return (false, actions) }
        switch status {
        case 200:
            let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard mediaType == "text/event-stream" else {
                end(with: .failure(.contentType(contentType)), &actions)
                settle(&actions)
                return (false, actions)
            }
            phase = .streaming(id)
            failures = 0
            parser = EventStreamParser(lastEventID: parser.lastEventID)
            return (true, actions)
        case 204:
            end(with: .finished, &actions)
        case 408, 429, 500...599:
            attemptFailed(because: "HTTP status \(status)", retryAfter: retryAfter, &actions)
        default:
            end(with: .failure(.status(status)), &actions)
        }
        settle(&actions)
        return (false, actions)
    }

    /// Connection `id` received body bytes.
    mutating func received(id: UInt64, _ data: Data) -> Actions {
        var actions = Actions()
        guard phase == .streaming(id) || phase == .suspended(id) else { return actions }
        parser.append(data)
        settle(&actions)
        if parser.unfinishedEventSize > configuration.maximumEventSize {
            if buffer.count < configuration.bufferSize {
                // The parser stopped for want of bytes, inside an event too large.
                end(with: .failure(.eventTooLarge(limit: configuration.maximumEventSize)), &actions)
            } else {
                // The buffer is full and the bytes that wait behind it are past the limit.
                end(with: .failure(.subscriberTooSlow(limit: configuration.maximumEventSize)), &actions)
            }
            settle(&actions)
        }
        return actions
    }

    /// Connection `id` ended, with `error` if it failed.
    mutating func completed(id: UInt64, error: (any Error)?) -> Actions {
        var actions = Actions()
        switch phase {
        case .connecting(id):
            task = nil
            attemptFailed(because: error.map { String(describing: $0) } ?? "no response", &actions)
        case .streaming(id), .suspended(id):
            // The stream was open: wait the reconnection time (what arrived of an unfinished
            // event is discarded when the next connection's parser replaces this one).
            task = nil
            let timer = makeID()
            phase = .waiting(timer)
            actions.reconnect = (timer, reconnectionTime)
        default:
            break
        }
        settle(&actions)
        return actions
    }

    /// Timer `id` fired: the next attempt, if it is still due.
    mutating func timerFired(id: UInt64) -> Actions {
        var actions = Actions()
        guard phase == .waiting(id) else { return actions }
        phase = .disconnected   // reconnects in settle() as soon as the buffer has room
        settle(&actions)
        return actions
    }

    // MARK: Transitions' common parts

    private mutating func attemptFailed(because reason: String, retryAfter: Duration? = nil, _ actions: inout Actions) {
        failures += 1
        if let maximum = configuration.maximumAttempts, failures >= maximum {
            end(with: .failure(.gaveUp(attempts: failures, lastFailure: reason)), &actions)
            return
        }
        actions.cancel = task
        task = nil
        let timer = makeID()
        phase = .waiting(timer)
        actions.reconnect = (timer, configuration.delay(afterFailures: failures, reconnectionTime: reconnectionTime,
                                                        random: Double.random(in: 0..<1), retryAfter: retryAfter))
    }

    private mutating func end(with completion: Subscribers.Completion<EventSourceError>, _ actions: inout Actions) {
        actions.cancel = task
        task = nil
        phase = .finished
        self.completion = completion
    }

    /// Moves parsed events into the buffer while it has room, then decides: deliver, or stop or
    /// restart the reading of the stream.
    private mutating func settle(_ actions: inout Actions) {
        guard consumer != nil else { return }
        // Once ended, what was buffered is delivered, then the completion; nothing more is parsed.
        while phase != .finished, buffer.count < configuration.bufferSize, let message = parser.next() {
            buffer.append(configuration.recognizesSluiceControlEvents ? EventSource.Event(recognizing: message) : .event(message))
        }
        if let milliseconds = parser.reconnectionTime {
            reconnectionTime = .milliseconds(milliseconds)
        }
        if delivering { return }   // the delivery loop settles again when it stops
        if (demand > .none && !buffer.isEmpty) || (buffer.isEmpty && completion != nil) {
            delivering = true
            actions.drain = true
            return
        }
        let full = buffer.count >= configuration.bufferSize
        let lowWater = buffer.count <= configuration.bufferSize / 2
        switch phase {
        case .streaming(let id) where full:
            switch pauseMethod {
            case .suspend:
                phase = .suspended(id)
                actions.suspend = task
            case .disconnect where !parser.lastEventID.isEmpty:
                phase = .disconnected
                actions.cancel = task
                task = nil
            case .disconnect:
                // Nothing to resume from: a new request would start the stream over. Go on
                // reading, holding the bytes unparsed (up to the limit `received` checks).
                break
            }
        case .suspended(let id) where lowWater:
            phase = .streaming(id)
            actions.resume = task
        case .disconnected where lowWater:
            let id = makeID()
            phase = .connecting(id)
            actions.connect = (id, parser.lastEventID)
        default:
            break
        }
    }
}

/// Where a subscription's events go: a Combine subscriber or an async iterator.
struct EventSourceConsumer: @unchecked Sendable {
    /// Delivers one event; returns the further demand.
    let receive: (EventSource.Event) -> Subscribers.Demand
    /// Delivers the completion.
    let complete: (Subscribers.Completion<EventSourceError>) -> Void
}
