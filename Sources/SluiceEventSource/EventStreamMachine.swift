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

/// What reads a stream's bytes into messages: ``EventStreamParser`` for Server-Sent Events,
/// ``SocketMessageDecoder`` for a feed's WebSocket messages.
protocol EventStreamDecoder: Sendable {
    /// A decoder whose last event ID starts at `lastEventID`.
    init(lastEventID: String)
    /// Takes the next bytes of the stream (for a WebSocket, one whole message).
    mutating func take(_ data: Data)
    /// The next whole message, or `nil` until more bytes come.
    mutating func next() -> EventSource.Message?
    /// What a reconnection resumes after.
    var lastEventID: String { get }
    /// The reconnection time the stream set, in milliseconds.
    var reconnectionTime: Int? { get }
    /// The bytes held of the message being read once ``next()`` returned `nil`.
    var unfinishedEventSize: Int { get }

    // A socket of topics: what it follows, and the messages that tell the server.

    /// Follows `topics` from the first connection on.
    mutating func follow(_ topics: [String])
    /// The topics to name in the URL of the connection about to be made.
    mutating func connecting() -> [String]
    /// A connection opened: the decoder starts reading it (a Server-Sent Events parser starts
    /// over, keeping the last event ID). Returns the messages to send on it first.
    mutating func opened() -> [String]
    /// Follows `topic` (after the event `after` of it, if given). Returns what to send on an open
    /// connection.
    mutating func subscribe(_ topic: String, after: String?) -> [String]
    /// Stops following `topic`. Returns what to send on an open connection.
    mutating func unsubscribe(_ topic: String) -> [String]
    /// `message` with its topic and the topic's id, on a stream of `topics` (see
    /// ``EventSource/Message/placed(in:)``).
    func placed(_ message: EventSource.Message, in topics: [String]) -> EventSource.Message
}

extension EventStreamDecoder {
    mutating func follow(_ topics: [String]) {}
    mutating func connecting() -> [String] { [] }
    mutating func opened() -> [String] {
        self = Self(lastEventID: lastEventID)
        return []
    }
    mutating func subscribe(_ topic: String, after: String?) -> [String] { [] }
    mutating func unsubscribe(_ topic: String) -> [String] { [] }
    func placed(_ message: EventSource.Message, in topics: [String]) -> EventSource.Message { message.placed(in: topics) }
}

/// One connection of a subscription, as the machine stops, restarts and closes it: a
/// `URLSessionDataTask`, or a connection of the module's own.
protocol EventStreamConnection: AnyObject {
    /// How a full buffer stops this connection's reading.
    var pauseMethod: EventStreamPauseMethod { get }
    /// Closes the connection; nothing of it is reported after.
    func cancel()
    /// Stops reading until ``resume()``.
    func suspend()
    /// Reads on.
    func resume()
    /// Sends a text message (a WebSocket's; one of Server-Sent Events sends nothing).
    func send(text: String)
}

extension EventStreamConnection {
    func send(text: String) {}
}

/// How a full buffer stops a connection's reading.
enum EventStreamPauseMethod {
    /// The connection's `suspend()`, and `resume()` when there is room: the connection stays open
    /// and TCP holds the server back.
    case suspend
    /// Reading on past a full buffer until the bytes held unparsed pass the configuration's
    /// `readAhead`, then closing the connection, and reconnecting with `Last-Event-ID` once the
    /// subscriber has taken what was held; for a stream without an event ID yet (nothing to
    /// resume from), reading on and holding the bytes unparsed, up to the configuration's
    /// `maximumEventSize`. For a transfer that cannot be suspended.
    case disconnect
}

extension URLSessionDataTask: EventStreamConnection {
    /// How a data task pauses: suspending on Apple's systems; FoundationNetworking cannot
    /// suspend a transfer.
    static var dataTaskPauseMethod: EventStreamPauseMethod {
        #if canImport(Darwin)
        .suspend
        #else
        .disconnect
        #endif
    }

    var pauseMethod: EventStreamPauseMethod { Self.dataTaskPauseMethod }
}

extension EventStreamParser: EventStreamDecoder {
    mutating func take(_ data: Data) { append(data) }
}

/// How a server answered a connection's request.
enum StreamAnswer: Equatable {
    /// The stream is open: read it.
    case stream
    /// Finished for good (HTTP 204): complete.
    case finished
    /// An attempt that failed with `error`, retried after a backoff (`retryAfter`: the least wait
    /// the server asked for).
    case retry(EventSourceError, retryAfter: Duration?)
    /// An answer that retrying will not change.
    case failure(EventSourceError)

    /// The answer of an HTTP status other than the one that opens the stream: 204 finishes; 408,
    /// 429 and 5xx are retried; any other status fails.
    static func status(_ status: Int, retryAfter: Duration?) -> StreamAnswer {
        switch status {
        case 204: .finished
        case 408, 429, 500...599: .retry(.status(status), retryAfter: retryAfter)
        default: .failure(.status(status))
        }
    }

    /// The wait a `Retry-After` header asks for, in seconds (its HTTP-date form is not used).
    static func retryAfter(_ header: String?) -> Duration? {
        header.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds($0) }
    }

    /// The answer to a Server-Sent Events request: 200 with `text/event-stream` opens it.
    static func eventStream(status: Int, contentType: String?, retryAfter: Duration?) -> StreamAnswer {
        guard status == 200 else { return .status(status, retryAfter: retryAfter) }
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        return mediaType == "text/event-stream" ? .stream : .failure(.contentType(contentType))
    }
}

/// The state of one subscription to an ``EventSource`` or an ``EventSocket``: its connection,
/// decoder, buffer, demand and consumer. Its transitions return the ``Actions`` that the
/// ``EventStreamDriver`` performs after unlocking; it calls nothing outside itself.
struct EventStreamMachine<Decoder: EventStreamDecoder> {
    /// Where the subscription's connection stands.
    enum Phase: Equatable {
        /// No demand yet: nothing requested from the server.
        case idle
        /// Request `id` is sent; no response yet.
        case connecting(UInt64)
        /// Request `id` answered with an event stream, being read.
        case streaming(UInt64)
        /// Request `id`'s connection is suspended: the buffer is full (``EventStreamPauseMethod/suspend``).
        case suspended(UInt64)
        /// The buffer was full and the connection was closed; it is reopened, with `Last-Event-ID`,
        /// once the subscriber has taken half of the buffer (``EventStreamPauseMethod/disconnect``).
        case disconnected
        /// Waiting for timer `id` before the next attempt.
        case waiting(UInt64)
        /// Ended: completed, failed or cancelled.
        case finished
    }

    /// What the driver does after a transition, in this order.
    struct Actions {
        /// Open connection `id`, resuming after `lastEventID` if it is not empty, naming `topics`
        /// in its URL (a socket of topics).
        var connect: (id: UInt64, lastEventID: String, topics: [String])?
        /// Send what the outbox holds on the connection (``takeOutbox()``).
        var send = false
        /// Cancel this task (a connection given up, or the subscription cancelled).
        var cancel: (any EventStreamConnection)?
        /// Suspend or resume connection `id` as the phase now says (``isSuspended(_:)``): the
        /// driver applies the phase as it is when it gets there, so that a suspend and a resume
        /// performed on two threads cannot land in the wrong order.
        var pause: (connection: any EventStreamConnection, id: UInt64)?
        /// Start timer `id`: the next attempt after `delay`.
        var reconnect: (id: UInt64, delay: Duration)?
        /// Run the delivery loop (this caller has become the one delivering).
        var drain = false
        /// Tell the subscription's handler, first of all.
        var reports: [EventSource.ConnectionEvent] = []
    }

    /// What the delivery loop does next.
    enum Step {
        case deliver(EventSource.Event, EventSourceConsumer)
        case complete(Subscribers.Completion<EventSourceError>, EventSourceConsumer)
        case stop(Actions)
    }

    let configuration: EventSource.Configuration
    private(set) var phase = Phase.idle
    private(set) var buffer: [EventSource.Event] = []
    private var demand = Subscribers.Demand.none
    private var delivering = false
    private var consumer: EventSourceConsumer?
    private var completion: Subscribers.Completion<EventSourceError>?
    private var parser: Decoder
    private var task: (any EventStreamConnection)?
    private var nextID: UInt64 = 0
    /// Consecutive failed attempts: answers that were not a stream, and refusals. A stream that
    /// sends its first bytes resets it.
    private(set) var failures = 0
    /// When the first of the consecutive failed attempts failed.
    private var failingSince: ContinuousClock.Instant?
    /// The time now (a test's clock in the machine's tests).
    private let now: @Sendable () -> ContinuousClock.Instant
    /// The reconnection time: the configuration's until the server sends `retry:`.
    private(set) var reconnectionTime: Duration
    /// The stream's topics (a stream of several), whose events are given their topic.
    let topics: [String]
    /// Messages to send on the open connection, in order (a socket of topics).
    private var outbox: [String] = []

    init(configuration: EventSource.Configuration, consumer: EventSourceConsumer, lastEventID: String = "",
         topics: [String] = [], now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.configuration = configuration
        self.now = now
        parser = Decoder(lastEventID: lastEventID)
        parser.follow(topics)
        self.topics = topics
        self.consumer = consumer
        reconnectionTime = configuration.reconnectionTime
    }

    /// Whether connection `id` is to be suspended: the buffer was full, and has not yet been
    /// taken down to half.
    func isSuspended(_ id: UInt64) -> Bool { phase == .suspended(id) }

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
            startAttempt(&actions)
        }
        settle(&actions)
        return actions
    }

    /// Follows `topic` too (a socket of topics), after its event `after` if given: told to the
    /// server now if the connection is open, else when it opens.
    mutating func subscribe(_ topic: String, after: String?) -> Actions {
        let messages = parser.subscribe(topic, after: after)
        return queue(messages)
    }

    /// Stops following `topic` (a socket of topics).
    mutating func unsubscribe(_ topic: String) -> Actions {
        let messages = parser.unsubscribe(topic)
        return queue(messages)
    }

    /// Queues `messages` for the open connection (none: they are for a closed one, whose next
    /// connection is told everything when it opens).
    private mutating func queue(_ messages: [String]) -> Actions {
        var actions = Actions()
        switch phase {
        case .streaming, .suspended:
            guard task != nil, !messages.isEmpty else { break }
            outbox += messages
            actions.send = true
        default:
            break
        }
        return actions
    }

    /// What the outbox holds, taken, and the connection to send it on.
    mutating func takeOutbox() -> (connection: any EventStreamConnection, messages: [String])? {
        guard let task, !outbox.isEmpty else { return nil }
        defer { outbox = [] }
        return (task, outbox)
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
    mutating func attach(_ task: any EventStreamConnection, id: UInt64) -> Bool {
        guard phase == .connecting(id) else { return false }
        self.task = task
        return true
    }

    /// Connection `id` got its response head: an event stream's answer (see
    /// ``StreamAnswer/eventStream(status:contentType:retryAfter:)``). Returns whether to go on
    /// reading the body.
    mutating func responded(id: UInt64, status: Int, contentType: String?,
                            retryAfter: Duration? = nil) -> (allow: Bool, actions: Actions) {
        responded(id: id, .eventStream(status: status, contentType: contentType, retryAfter: retryAfter))
    }

    /// Connection `id` got its server's answer. Returns whether to go on reading.
    mutating func responded(id: UInt64, _ answer: StreamAnswer) -> (allow: Bool, actions: Actions) {
        var actions = Actions()
        guard phase == .connecting(id) else { return (false, actions) }
        switch answer {
        case .stream:
            phase = .streaming(id)
            outbox = parser.opened()
            actions.send = !outbox.isEmpty
            actions.reports.append(.connected)
            return (true, actions)
        case .finished:
            end(with: .finished, &actions)
        case .retry(let error, let retryAfter):
            attemptFailed(because: error, retryAfter: retryAfter, &actions)
        case .failure(let error):
            actions.reports.append(.attemptFailed(attempt: failures + 1, error: error, retryIn: nil))
            end(with: .failure(error), &actions)
        }
        settle(&actions)
        return (false, actions)
    }

    /// Connection `id` received body bytes.
    mutating func received(id: UInt64, _ data: Data) -> Actions {
        var actions = Actions()
        guard phase == .streaming(id) || phase == .suspended(id) else { return actions }
        if !data.isEmpty { failures = 0 }   // an attempt has succeeded once its stream sends something
        parser.take(data)
        settle(&actions)
        if phase != .disconnected, parser.unfinishedEventSize > configuration.maximumEventSize {
            if buffer.count < configuration.bufferSize {
                // The parser stopped for want of bytes, inside an event too large.
                lost(with: .eventTooLarge(limit: configuration.maximumEventSize), &actions)
                settle(&actions)
            } else if phase != .suspended(id) {
                // The buffer is full and the bytes that wait behind it, on a connection that
                // cannot pause, are past the limit. (A suspended connection stopped reading: what
                // it held is at most what its last reads brought, parsed once there is room.)
                lost(with: .subscriberTooSlow(limit: configuration.maximumEventSize), &actions)
                settle(&actions)
            }
        }
        return actions
    }

    /// Connection `id` ended, with `error` if it failed.
    mutating func completed(id: UInt64, error: EventSourceError?) -> Actions {
        var actions = Actions()
        switch phase {
        case .connecting(id):
            task = nil
            attemptFailed(because: error ?? .connectionLost("the server closed the connection without an answer"), &actions)
        case .streaming(id), .suspended(id):
            // The stream was open: wait the reconnection time (what arrived of an unfinished
            // event is discarded when the next connection's parser replaces this one).
            task = nil
            let timer = makeID()
            phase = .waiting(timer)
            actions.reconnect = (timer, reconnectionTime)
            actions.reports.append(.disconnected(error: error, reconnectIn: reconnectionTime))
        default:
            break
        }
        settle(&actions)
        return actions
    }

    /// Connection `id`, open or not, was ended by its server with `answer`: a failed attempt
    /// (``StreamAnswer/retry(reason:retryAfter:)``: a WebSocket's close "try again later") waits a
    /// backoff; a failure, or the end, completes the subscription after the events received.
    mutating func ended(id: UInt64, with answer: StreamAnswer) -> Actions {
        var actions = Actions()
        guard phase == .connecting(id) || phase == .streaming(id) || phase == .suspended(id) else { return actions }
        let wasOpen = phase != .connecting(id)
        task = nil
        switch answer {
        case .retry(let error, let retryAfter): attemptFailed(because: error, retryAfter: retryAfter, &actions)
        case .failure(let error) where wasOpen: lost(with: error, &actions)
        case .failure(let error):
            actions.reports.append(.attemptFailed(attempt: failures + 1, error: error, retryIn: nil))
            end(with: .failure(error), &actions)
        case .finished: end(with: .finished, &actions)
        case .stream: preconditionFailure("a connection cannot end with a stream")
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

    /// Opens the next connection.
    private mutating func startAttempt(_ actions: inout Actions) {
        let id = makeID()
        phase = .connecting(id)
        outbox = []
        actions.connect = (id, parser.lastEventID, parser.connecting())
        actions.reports.append(.connecting(attempt: failures + 1, lastEventID: parser.lastEventID))
    }

    /// The attempt failed with `error`: the next one after a backoff, unless the attempts ran out.
    private mutating func attemptFailed(because error: EventSourceError, retryAfter: Duration? = nil, _ actions: inout Actions) {
        failures += 1
        let now = self.now()
        if failures == 1 { failingSince = now }
        let delay = configuration.delay(afterFailures: failures, reconnectionTime: reconnectionTime,
                                        random: Double.random(in: 0..<1), retryAfter: retryAfter)
        let outOfAttempts = configuration.maximumAttempts.map { failures >= $0 } ?? false
        let outOfTime = configuration.maximumRetryTime.map { limit in
            (failingSince ?? now).duration(to: now) + delay > limit
        } ?? false
        if outOfAttempts || outOfTime {
            actions.reports.append(.attemptFailed(attempt: failures, error: error, retryIn: nil))
            end(with: .failure(.gaveUp(attempts: failures, lastFailure: error)), &actions)
            return
        }
        actions.reports.append(.attemptFailed(attempt: failures, error: error, retryIn: delay))
        actions.cancel = task
        task = nil
        let timer = makeID()
        phase = .waiting(timer)
        actions.reconnect = (timer, delay)
    }

    /// The open stream failed with `error`, which retrying will not change.
    private mutating func lost(with error: EventSourceError, _ actions: inout Actions) {
        actions.reports.append(.disconnected(error: error, reconnectIn: nil))
        end(with: .failure(error), &actions)
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
            // An event that came whole in one read is held to the bound an unfinished one is.
            guard message.data.utf8.count <= configuration.maximumEventSize else {
                lost(with: .eventTooLarge(limit: configuration.maximumEventSize), &actions)
                break
            }
            let message = topics.isEmpty ? message : parser.placed(message, in: topics)
            buffer.append(configuration.recognizesSluiceControlEvents ? EventSource.Event(recognizing: message) : .event(message))
        }
        if let milliseconds = parser.reconnectionTime {
            reconnectionTime = .milliseconds(milliseconds)
        }
        let deliverable = (demand > .none && !buffer.isEmpty) || (buffer.isEmpty && completion != nil)
        if deliverable && !delivering {
            delivering = true
            actions.drain = true
            return
        }
        // Whether or not a delivery is under way on another thread (one that goes on for as long
        // as its subscriber keeps asking must not let the bytes behind a full buffer grow
        // unchecked): the reading stops when the buffer is full, and starts again at half.
        let full = buffer.count >= configuration.bufferSize
        let lowWater = buffer.count <= configuration.bufferSize / 2
        switch phase {
        case .streaming(let id) where full:
            switch task?.pauseMethod ?? .disconnect {
            case .suspend:
                phase = .suspended(id)
                actions.pause = task.map { ($0, id) }
            case .disconnect where !parser.lastEventID.isEmpty:
                // What was received is kept, and parsed as the subscriber takes events, up to the
                // read-ahead; past it the connection is closed, to resume after the last event.
                guard parser.unfinishedEventSize > Swift.min(configuration.readAhead, configuration.maximumEventSize / 2) else { break }
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
            actions.pause = task.map { ($0, id) }
        case .disconnected where lowWater:
            startAttempt(&actions)
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
