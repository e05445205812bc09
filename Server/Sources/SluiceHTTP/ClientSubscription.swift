import NIOConcurrencyHelpers
import Sluice

/// Told when the stream it receives begins to finish (the feed finished, or a graceful shutdown
/// of this stream), before the last message is delivered: a socket writer uses it to bound how
/// long it waits for a stalled client.
protocol FeedFinishingObserver: AnyObject {
    func feedIsFinishing()
}

/// A client of a feed: the subscriber of the feed's subject (unlimited demand: the feed never
/// waits) and the subscription of the client's own subscriber, with a ``ClientBuffer`` between
/// them behind a lock. Deliveries run outside the lock, one thread at a time (a message that
/// arrives during a delivery is left to the delivering thread).
final class ClientSubscription<Output: Sendable, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, @unchecked Sendable
where Downstream.Input == FeedMessage<Output>, Downstream.Failure == FeedClientFailure {
    typealias Input = FeedEntry<Output>
    typealias Failure = Never

    private struct State {
        var buffer: ClientBuffer<Output>
        var downstream: Downstream?
        var upstream: (any Subscription)?
        var upstreamCancelled = false
        var attached = false
        var delivering = false
        var failure: FeedClientFailure?
    }

    private let feed: EventFeed<Output>
    private let state: NIOLockedValueBox<State>

    init(feed: EventFeed<Output>, policy: SlowClientPolicy, downstream: Downstream) {
        self.feed = feed
        state = NIOLockedValueBox(State(buffer: ClientBuffer(policy: policy), downstream: downstream))
    }

    var description: String { "EventFeed.Client" }

    /// Sets where the client starts (it is attached to the feed's live events by now) and counts it
    /// as connected: every event published from here on reaches it.
    func start(replay: [(UInt64, Output)], reset: UInt64??, startAfter: UInt64) {
        state.withLockedValue { $0.buffer.start(replay: replay, reset: reset, startAfter: startAfter) }
        feed.counters.connected.add(1, ordering: .relaxed)
        feed.changed()
    }

    /// The downstream has its subscription: deliveries may begin.
    func attached() {
        state.withLockedValue { $0.attached = true }
        drain()
    }

    // MARK: From the feed

    func receive(subscription: any Subscription) {
        let keep = state.withLockedValue { state -> Bool in
            guard !state.upstreamCancelled else { return false }
            state.upstream = subscription
            return true
        }
        if keep { subscription.request(.unlimited) } else { subscription.cancel() }
    }

    func receive(_ entry: FeedEntry<Output>) -> Subscribers.Demand {
        let admission = state.withLockedValue { state -> ClientBuffer<Output>.Admission in
            guard state.downstream != nil else { return .closed }
            let admission = state.buffer.offer(entry.id, entry.value)
            if admission == .overflow { state.failure = .fellBehind(buffered: state.buffer.policy.bufferSize) }
            return admission
        }
        switch admission {
        case .buffered:
            drain()
        case .droppedOldest, .droppedNewest:
            feed.counters.dropped.add(1, ordering: .relaxed)
            feed.changed()
            drain()
        case .overflow:
            feed.counters.disconnected.add(1, ordering: .relaxed)
            cancelUpstream()
            drain()
        case .duplicate, .closed:
            break
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        finish(reason: feed.finishReason ?? "the server is shutting down")
    }

    /// Ends this client's stream after what is buffered and a shutdown message.
    func finish(reason: String) {
        let (finishing, downstream) = state.withLockedValue { state in
            (state.buffer.finish(reason: reason), state.downstream)
        }
        guard finishing else { return }
        cancelUpstream()
        (downstream as? any FeedFinishingObserver)?.feedIsFinishing()
        drain()
    }

    // MARK: From the client

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "Demand must be greater than zero: request(.none) is not allowed")
        state.withLockedValue { $0.buffer.add(demand) }
        drain()
    }

    func cancel() {
        let (left, upstream) = state.withLockedValue { state -> (Bool, (any Subscription)?) in
            let left = state.downstream != nil
            state.downstream = nil
            state.upstreamCancelled = true
            defer { state.upstream = nil }
            return (left, state.upstream)
        }
        upstream?.cancel()
        if left { leave() }
    }

    // MARK: Delivery

    private func cancelUpstream() {
        let upstream = state.withLockedValue { state -> (any Subscription)? in
            state.upstreamCancelled = true
            defer { state.upstream = nil }
            return state.upstream
        }
        upstream?.cancel()
    }

    private func leave() {
        feed.counters.connected.subtract(1, ordering: .relaxed)
        feed.changed()
    }

    private enum Step {
        case stop
        case deliver(Downstream, FeedMessage<Output>)
        case complete(Downstream, Subscribers.Completion<FeedClientFailure>)
    }

    private func drain() {
        let mine = state.withLockedValue { state -> Bool in
            guard state.attached, !state.delivering, state.downstream != nil else { return false }
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
                    return .complete(downstream, .failure(failure))
                }
                if let message = state.buffer.next() {
                    return .deliver(downstream, message)
                }
                if state.buffer.shutdownDelivered {
                    state.downstream = nil
                    state.delivering = false
                    return .complete(downstream, .finished)
                }
                state.delivering = false
                return .stop
            }
            switch step {
            case .stop:
                return
            case .complete(let downstream, let completion):
                cancelUpstream()
                leave()
                downstream.receive(completion: completion)
                return
            case .deliver(let downstream, let message):
                if case .event = message { feed.counters.delivered.add(1, ordering: .relaxed) }
                let more = downstream.receive(message)
                if more > .none { state.withLockedValue { $0.buffer.add(more) } }
            }
        }
    }
}
