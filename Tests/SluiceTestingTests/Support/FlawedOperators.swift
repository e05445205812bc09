import SluiceCore
import SluiceTesting

// A small operator written the way the articles teach (a subscriber that is also its downstream's
// subscription), forwarding values one to one — with one deliberate flaw each, for operator mode.

/// Forwards its upstream's values, demand and completion — except as `flaw` says.
struct FlawedOperator<Upstream: Publisher>: Publisher where Upstream.Output == Int {
    typealias Output = Int
    typealias Failure = Upstream.Failure

    enum Flaw: Sendable {
        /// Keeps one value "in reserve": asks upstream for one less than it was asked — `.none`
        /// when asked for `.max(1)`.
        case requestsOneLessUpstream
        /// Completes after two values, like `prefix(2)`, but lets go of its upstream without
        /// cancelling it.
        case finishesEarlyWithoutCancellingUpstream
        /// Asks upstream for `.unlimited` on the first request, and drops the values its subscriber
        /// has no demand for.
        case requestsUnlimitedAndDrops
        /// Its `cancel()` lets go of the upstream without cancelling it.
        case doesNotForwardCancel
    }

    let upstream: Upstream
    let flaw: Flaw

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Upstream.Failure {
        upstream.subscribe(Inner(downstream: subscriber, flaw: flaw))
    }

    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
    where Downstream.Input == Int, Downstream.Failure == Upstream.Failure {
        typealias Input = Int
        typealias Failure = Upstream.Failure

        private struct State {
            var downstream: Downstream?
            var upstream: (any Subscription)?
            var owed = Subscribers.Demand.none
            var forwarded = 0
            var requestedUpstream = false
        }

        private let lock = Lock()
        private var state: State
        private let flaw: Flaw

        init(downstream: Downstream, flaw: Flaw) {
            state = State(downstream: downstream)
            self.flaw = flaw
        }

        func receive(subscription: any Subscription) {
            let downstream = lock.withLock { () -> Downstream? in
                state.upstream = subscription
                return state.downstream
            }
            downstream?.receive(subscription: self)
        }

        func request(_ demand: Subscribers.Demand) {
            let (upstream, first) = lock.withLock { () -> ((any Subscription)?, Bool) in
                state.owed += demand
                defer { state.requestedUpstream = true }
                return (state.upstream, !state.requestedUpstream)
            }
            guard let upstream else { return }
            switch flaw {
            case .requestsOneLessUpstream:
                upstream.request(demand - 1)
            case .requestsUnlimitedAndDrops:
                if first { upstream.request(.unlimited) }
            case .finishesEarlyWithoutCancellingUpstream, .doesNotForwardCancel:
                upstream.request(demand)
            }
        }

        func receive(_ input: Int) -> Subscribers.Demand {
            let (downstream, finishes) = lock.withLock { () -> (Downstream?, Bool) in
                guard let downstream = state.downstream, state.owed > 0 else { return (nil, false) }
                state.owed -= 1
                state.forwarded += 1
                guard flaw == .finishesEarlyWithoutCancellingUpstream && state.forwarded == 2 else {
                    return (downstream, false)
                }
                state.downstream = nil
                state.upstream = nil  // the flaw: dropped, not cancelled
                return (downstream, true)
            }
            guard let downstream else { return .none }
            let more = downstream.receive(input)
            if finishes {
                downstream.receive(completion: .finished)
                return .none
            }
            lock.withLock { state.owed += more }
            return flaw == .requestsUnlimitedAndDrops ? .none : more
        }

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let downstream = lock.withLock { () -> Downstream? in
                defer {
                    state.downstream = nil
                    state.upstream = nil
                }
                return state.downstream
            }
            downstream?.receive(completion: completion)
        }

        func cancel() {
            let (downstream, upstream) = lock.withLock { () -> (Downstream?, (any Subscription)?) in
                defer {
                    state.downstream = nil
                    state.upstream = nil
                }
                return (state.downstream, state.upstream)
            }
            _ = downstream
            if flaw != .doesNotForwardCancel { upstream?.cancel() }
        }
    }
}

extension Publisher where Output == Int {
    /// This publisher through a `FlawedOperator` with `flaw`.
    func flawed(_ flaw: FlawedOperator<Self>.Flaw) -> FlawedOperator<Self> {
        FlawedOperator(upstream: self, flaw: flaw)
    }
}
