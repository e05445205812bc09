#if Server
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import Sluice

/// A writer that runs on an event loop, woken by its ``ClientOutlet`` instead of a waiting task.
package protocol OutletLoopWriter: AnyObject, Sendable {
    /// The outlet has `step` for the writer (`nil`: poll again); called on any thread, once per
    /// ``ClientOutlet/poll(_:)`` that returned `nil`.
    func outletWoke(with step: ClientOutlet.Step?)
}

/// A feed client's sink on the socket's side: it keeps at most `window` messages requested,
/// hands them to the writer — a task (``serve(_:)``, ``next()``), or a handler on the connection's
/// event loop (``poll(_:)``) — and requests as many again only once the writer's write of them has
/// completed (the writer follows the channel's writability). Also
/// carries the stream's heartbeat ticks and the reasons to stop writing at once (the peer closed
/// its side, the client was disconnected by policy, a shutdown that a stalled client outlasted).
///
/// Messages are handed over in an array that the writer gives back when its write is done
/// (``wrote(_:requestingMore:)``), so that a stream's steady state allocates nothing per batch. A writer that
/// waits is given its next batch with its wake-up: a batch costs the writer the outlet's lock
/// once to wait (or to find the batch ready) and once to give the array back and ask for more.
package final class ClientOutlet: ClientSink, @unchecked Sendable {
    /// What the writing task is to do next.
    package enum Step: Sendable {
        case write([ClientMessage])
        case heartbeat
        /// Something besides the feeds' messages is for the writer (``nudge()``).
        case nudge
        case finish
        case stop(reason: StopReason)
    }

    /// Why a stream stops without its last message.
    package typealias StopReason = FeedStreamStop

    private struct State {
        /// The feed subscription of a stream of one feed.
        var subscription: ClientSubscription?
        /// Of a stream of several topics (``isTopicSet``): each topic's feed subscription, by its
        /// index; the topics the writer removed (their subscriptions come to be cancelled); what
        /// each topic is owed, written while the channel was not writable (``request(_:)``).
        var topics = TopicSubscriptions()
        /// The topics' one buffer, made when the first topic joins.
        var buffer: ConnectionBuffer?
        var removedTopics: Set<Int32> = []
        var owedTopics: [Int32: Int] = [:]
        /// Whether a shutdown message is queued: the first topic's to finish speaks for all.
        var shutdownQueued = false
        var pending: [ClientMessage] = []
        var spare: [ClientMessage] = []
        var finished = false
        var stop: StopReason?
        var wroteSinceTick = false
        var heartbeatDue = false
        var nudged = false
        /// The writer, waiting: woken with its next batch by a hand-over, or with `nil` (look
        /// again) by anything else.
        var waiter: Waiter?
        var stopWaiter: UnsafeContinuation<Void, Never>?
        var timers: [Scheduled<Void>] = []
        var ended = false
        /// How the writing task ended, once it has.
        var pumped: Result<Void, any Error>?

        /// The writing task's next step, if it has one now.
        mutating func step() -> Step? {
            if let stop { return .stop(reason: stop) }
            if ended { return .stop(reason: .cancelled) }
            if nudged {
                nudged = false
                return .nudge
            }
            if !pending.isEmpty { return .write(batch()) }
            if finished { return .finish }
            if heartbeatDue {
                heartbeatDue = false
                return .heartbeat
            }
            return nil
        }

        /// What is pending, as the writer's next batch; the spare (always empty) becomes `pending`.
        mutating func batch() -> [ClientMessage] {
            wroteSinceTick = true
            var batch: [ClientMessage] = []
            swap(&batch, &spare)
            swap(&batch, &pending)
            return batch                   // its only reference: given back unshared
        }

        /// The waiting writer, if any, to wake with `nil` once the lock is released.
        mutating func takeWaiter() -> Waiter? {
            defer { waiter = nil }
            return waiter
        }
    }

    /// A waiting writer: a task (``next()``), or a writer on an event loop (``poll(_:)``).
    enum Waiter {
        case task(UnsafeContinuation<Step?, Never>)
        case loop(any OutletLoopWriter)

        /// Wakes the writer with `step` (`nil`: look again).
        func wake(_ step: Step?) {
            switch self {
            case .task(let continuation): continuation.resume(returning: step)
            case .loop(let writer): writer.outletWoke(with: step)
            }
        }
    }

    /// A waiting writer and the step it is woken with, to wake once the caller holds no lock.
    struct Wake {
        let writer: Waiter
        let step: Step

        func resume() { writer.wake(step) }
    }

    private let window: Int
    /// Whether the stream carries several topics, each from its feed (``join(topic:)``), rather
    /// than one feed.
    package let isTopicSet: Bool
    private let heartbeat: TimeAmount?
    private let shutdownGrace: TimeAmount
    private let eventLoop: any EventLoop
    /// Where the stream's end is logged, if anywhere.
    private let counters: FeedCounters?
    private let state = NIOLockedValueBox(State())

    package init(window: Int, heartbeat: TimeAmount?, shutdownGrace: TimeAmount, eventLoop: any EventLoop,
                 counters: FeedCounters? = nil, topicSet: Bool = false) {
        self.counters = counters
        isTopicSet = topicSet
        self.window = window
        self.heartbeat = heartbeat
        self.shutdownGrace = shutdownGrace
        self.eventLoop = eventLoop
        if let heartbeat {
            // The loop's ticker holds the outlet until ``end()`` takes it off (the stream always
            // ends with it). Not a weak reference: one would give the outlet a side table, and every
            // retain of it, several per delivery, would take the runtime's slow path.
            state.withLockedValue { $0.wroteSinceTick = true }   // joining counts as a write
            HeartbeatTicker.join(self, loop: eventLoop, interval: heartbeat)
        }
    }

    // MARK: ClientSink

    package func receive(subscription: ClientSubscription) {
        let keep = state.withLockedValue { state -> Bool in
            guard !state.ended, state.stop == nil else { return false }
            if isTopicSet {
                guard !state.removedTopics.contains(subscription.topic) else { return false }
                state.topics[subscription.topic] = subscription
            } else {
                state.subscription = subscription
            }
            return true
        }
        if keep { subscription.request(.max(window)) } else { subscription.cancel() }
    }

    package func receive(_ message: ClientMessage) -> Subscribers.Demand {
        var message = Optional(message)
        append {
            defer { message = nil }
            return message
        }?.resume()
        return .none
    }

    /// Queues the messages `next` gives until it gives `nil`, under the outlet's lock once; if the
    /// writing task was waiting, returns it with them as its batch, to resume once the caller
    /// holds no lock. Calls nothing but `next`: the client's subscription calls it under its own
    /// lock (``ClientSubscription``'s hand-over).
    func append(_ next: () -> ClientMessage?) -> Wake? {
        state.withLockedValue { state in
            let before = state.pending.count
            while let message = next() {
                if isTopicSet, case .shutdown = message {   // one shutdown message for all the topics
                    if state.shutdownQueued { continue }
                    state.shutdownQueued = true
                }
                state.pending.append(message)
            }
            guard state.pending.count > before, let writer = state.takeWaiter() else { return nil }
            return Wake(writer: writer, step: .write(state.batch()))
        }
    }

    package func receive(completion: Subscribers.Completion<FeedClientFailure>) {
        switch completion {
        case .finished:
            let waiter = state.withLockedValue { state -> Waiter? in
                state.finished = true
                state.subscription = nil
                return state.takeWaiter()
            }
            waiter?.wake(nil)
        case .failure(.fellBehind):
            stop(.fellBehind)
        case .failure(.historyUnavailable):
            stop(.historyUnavailable)
        case .failure(.tooManyClients):
            stop(.tooManyClients)
        }
    }

    package var hasLeft: Bool { state.withLockedValue { $0.ended } }

    package func feedIsFinishing() {
        let timer = eventLoop.scheduleTask(in: shutdownGrace) { () -> Void in self.stop(.shutdownTimedOut) }   // until end()
        let late = state.withLockedValue { state -> Bool in
            guard !state.ended else { return true }
            state.timers.append(timer)
            return false
        }
        if late { timer.cancel() }
    }

    // MARK: The writing task's side

    /// Runs `pump` (the task that writes what ``next()`` hands over) until it returns, or until
    /// the stream is to stop at once — then throws the reason without waiting for `pump`, whose
    /// write may be stuck on a stalled socket until the transport closes the connection (which
    /// it does when this throws). Ends the outlet. Inside a swift-service-lifecycle
    /// `ServiceGroup`, a graceful shutdown begins this stream's shutdown.
    package func serve(_ pump: @escaping @Sendable (ClientOutlet) async throws -> Void) async throws {
        do {
            try await serveUntilStopped(pump)
            counters?.streamEnded(nil)
        } catch {
            counters?.streamEnded(error)
            throw error
        }
    }

    private func serveUntilStopped(_ pump: @escaping @Sendable (ClientOutlet) async throws -> Void) async throws {
        defer { end() }
        let pumping = Task {
            do {
                try await pump(self)
                self.pumpEnded(.success(()))
            } catch {
                self.pumpEnded(.failure(error))
            }
        }
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await waitForStop()
            } onCancel: {
                self.end()
                pumping.cancel()
            }
        } onGracefulShutdown: {
            self.shutDown()
        }
    }

    /// The writing task has returned (or thrown): ``waitForStop()`` returns (or throws its error).
    private func pumpEnded(_ result: Result<Void, any Error>) {
        let waiter = state.withLockedValue { state -> UnsafeContinuation<Void, Never>? in
            if state.pumped == nil { state.pumped = result }
            defer { state.stopWaiter = nil }
            return state.stopWaiter
        }
        waiter?.resume()
    }

    /// Waits for the next thing to write (or a reason to end). One lock when a step is ready
    /// (the continuation is resumed before the task suspends, which then goes on at once) or to
    /// wait; a batch handed over while waiting comes with the wake-up.
    package func next() async -> Step {
        while true {
            let step = await withUnsafeContinuation { (continuation: UnsafeContinuation<Step?, Never>) in
                let ready = state.withLockedValue { state -> Step? in
                    if let step = state.step() { return step }
                    state.waiter = .task(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            if let step { return step }
        }
    }

    /// The messages of a ``Step/write(_:)`` were written: takes their array back for reuse and
    /// requests as many more (unless `requestingMore` is false: ``request(_:)`` later).
    package func wrote(_ messages: consuming [ClientMessage], requestingMore: Bool = true) {
        if isTopicSet { return wroteTopics(messages, requestingMore: requestingMore) }
        let count = messages.count
        messages.removeAll(keepingCapacity: true)
        let subscription = state.withLockedValue { state -> ClientSubscription? in
            if state.spare.capacity < messages.capacity { swap(&state.spare, &messages) }
            return state.subscription
        }
        guard requestingMore, count > 0, let subscription else { return }
        subscription.request(.max(count))
    }

    /// Requests `count` more messages (written earlier with `requestingMore` false); of a stream of
    /// several topics, what each topic is owed.
    package func request(_ count: Int) {
        if isTopicSet {
            let owed = state.withLockedValue { state -> [(ClientSubscription, Int)] in
                defer { state.owedTopics.removeAll() }
                return state.owedTopics.compactMap { topic, count in state.topics[topic].map { ($0, count) } }
            }
            for (subscription, count) in owed { subscription.request(.max(count)) }
            return
        }
        guard count > 0, let subscription = state.withLockedValue({ $0.subscription }) else { return }
        subscription.request(.max(count))
    }

    /// ``wrote(_:requestingMore:)`` of a stream of several topics: each topic is asked for as many
    /// as were written of it — once per run of messages of one topic — or owed them.
    private func wroteTopics(_ messages: consuming [ClientMessage], requestingMore: Bool) {
        var runs: [(topic: Int32, count: Int)] = []
        for index in messages.indices {
            guard let topic = messages[index].topic else { continue }
            if let last = runs.last, last.topic == topic { runs[runs.count - 1].count += 1 } else { runs.append((topic, 1)) }
        }
        messages.removeAll(keepingCapacity: true)
        let asks = state.withLockedValue { state -> [(ClientSubscription, Int)] in
            if state.spare.capacity < messages.capacity { swap(&state.spare, &messages) }
            guard requestingMore else {
                for run in runs where state.topics[run.topic] != nil { state.owedTopics[run.topic, default: 0] += run.count }
                return []
            }
            return runs.compactMap { run in state.topics[run.topic].map { ($0, run.count) } }
        }
        for (subscription, count) in asks { subscription.request(.max(count)) }
    }

    /// Joins the stream of several topics to `feed` as its topic `topic` (an index the writer
    /// names it by, not used before on this stream), from `start`. The topics share one
    /// ``ConnectionBuffer``, made when the first joins: under `policy` (`nil`: that feed's), of its
    /// feed's ``EventFeed/Options/bufferBytes``.
    package func join<Output>(_ feed: EventFeed<Output>, topic: Int32, from start: ResumePoint, policy: SlowClientPolicy?) {
        precondition(isTopicSet, "a stream of one feed joins it at connect")
        let buffer = state.withLockedValue { state in
            if let buffer = state.buffer { return buffer }
            let buffer = ConnectionBuffer(policy: policy ?? feed.options.policy, byteLimit: feed.options.bufferBytes)
            state.buffer = buffer
            return buffer
        }
        feed.join(self, from: start, seat: ClientSeat(topic: topic, of: buffer))
    }

    /// What the topics' one buffer holds now (`nil` before a topic joined, or of a stream of one feed).
    package var bufferHolding: (events: Int, bytes: Int)? {
        state.withLockedValue { $0.buffer }?.holding
    }

    /// Leaves the topic `topic` of a stream of several topics: its feed subscription is
    /// cancelled (now, or when it comes); its messages still pending are the writer's to skip.
    package func leave(topic: Int32) {
        let subscription = state.withLockedValue { state -> ClientSubscription? in
            state.removedTopics.insert(topic)
            state.owedTopics[topic] = nil
            return state.topics.removeValue(forKey: topic)
        }
        subscription?.cancel()
    }

    /// The feed subscriptions of the stream, to cancel or finish: its one feed's, or its topics'.
    private static func all(_ state: State) -> [ClientSubscription] {
        state.subscription.map { [$0] } ?? state.topics.all
    }

    // MARK: A writer on an event loop

    /// The next step for a writer that runs on an event loop rather than in a task; `nil` when
    /// there is none yet, and then `writer` is woken (``OutletLoopWriter/outletWoke(with:)``) when
    /// there is — once, until it polls again.
    package func poll(_ writer: any OutletLoopWriter) -> Step? {
        state.withLockedValue { state in
            if let step = state.step() { return step }
            state.waiter = .loop(writer)
            return nil
        }
    }

    /// A writer on an event loop has ended the stream: `error` is why (`nil`: it finished).
    package func ended(by error: (any Error)?) {
        if end() { counters?.streamEnded(error) }
    }

    /// Returns when the writing task has returned, throws when it has thrown or the stream is to
    /// stop at once (its reason), whichever comes first; returns when the outlet has ended.
    private func waitForStop() async throws {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let ready = state.withLockedValue { state -> Bool in
                if state.stop != nil || state.ended || state.pumped != nil { return true }
                state.stopWaiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        let (stop, pumped) = state.withLockedValue { ($0.stop, $0.pumped) }
        if let pumped { return try pumped.get() }   // the stream completed (or its write failed) first
        if let stop { throw stop }
    }

    /// Stops the stream at once: `reason` ends the writing task, the feed subscription is cancelled.
    package func stop(_ reason: StopReason) {
        let (subscriptions, waiter, stopWaiter) = state.withLockedValue { state in
            guard state.stop == nil, !state.ended else { return ([ClientSubscription](), Waiter?.none, UnsafeContinuation<Void, Never>?.none) }
            state.stop = reason
            defer {
                state.subscription = nil
                state.topics = TopicSubscriptions()
                state.stopWaiter = nil
            }
            return (Self.all(state), state.takeWaiter(), state.stopWaiter)
        }
        for subscription in subscriptions { subscription.cancel() }
        waiter?.wake(nil)
        stopWaiter?.resume()
    }

    /// The stream has ended: timers stop, the feed subscription (if still there) is cancelled, and
    /// whoever waits is released. Whether this call ended it (`false`: it had ended before).
    @discardableResult
    package func end() -> Bool {
        let (subscriptions, waiter, stopWaiter, timers, first) = state.withLockedValue { state in
            defer {
                state.ended = true
                state.subscription = nil
                state.topics = TopicSubscriptions()
                state.stopWaiter = nil
                state.timers = []
            }
            return (Self.all(state), state.takeWaiter(), state.stopWaiter, state.timers, !state.ended)
        }
        for subscription in subscriptions { subscription.cancel() }
        for timer in timers { timer.cancel() }
        if first, let heartbeat { HeartbeatTicker.leave(self, loop: eventLoop, interval: heartbeat) }
        waiter?.wake(nil)
        stopWaiter?.resume()
        return first
    }

    /// Graceful shutdown of this stream alone: the feed subscription sends what is buffered and a
    /// shutdown message, then finishes.
    package func shutDown() {
        for subscription in state.withLockedValue({ Self.all($0) }) { subscription.finish(reason: "the server is shutting down") }
    }

    /// Gives the writer ``Step/nudge`` at its next step: what else it has to write is ready.
    package func nudge() {
        let waiter = state.withLockedValue { state -> Waiter? in
            state.nudged = true
            return state.takeWaiter()
        }
        waiter?.wake(nil)
    }

    /// The loop's heartbeat ticker ticked: a heartbeat is due if nothing was written since its
    /// previous tick.
    func heartbeatTick() {
        let waiter = state.withLockedValue { state -> Waiter? in
            if state.wroteSinceTick {
                state.wroteSinceTick = false
                return nil
            }
            state.heartbeatDue = true
            return state.takeWaiter()
        }
        waiter?.wake(nil)
    }
}
#endif
