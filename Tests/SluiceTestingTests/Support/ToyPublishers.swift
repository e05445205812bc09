#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import SluiceCore
import Synchronization

// Small publishers written the way the articles teach (a publisher struct, a nested subscription
// class holding `downstream`), each with one deliberate flaw, for the kit to find.

/// Publishes 1, 2, 3... (`count` values, or for ever when `count` is nil), honouring demand,
/// thread-safe and re-entrant — unless `flaw` says otherwise.
struct Toy: Publisher {
    typealias Output = Int
    typealias Failure = Never

    /// One deliberate bug each.
    enum Flaw: Sendable {
        /// Sends every value on the first request, whatever the demand (the articles' first PepBoys).
        case ignoresDemand
        /// Checks for cancellation only once, before its send loop: keeps sending after a cancel
        /// made from inside `receive`.
        case sendsAfterCancel
        /// Sends `.finished` twice.
        case completesTwice
        /// Sends a value before the subscription.
        case sendsBeforeSubscription
        /// Calls `receive(subscription:)` twice.
        case subscribesTwice
        /// Sends a value after `.finished`.
        case sendsAfterCompletion
        /// Stops on cancel and completion but never lets go of `downstream`.
        case retainsSubscriber
        /// Delivers on whichever thread requests, without serialising deliveries.
        case deliversConcurrently
        /// Turns any demand returned from `receive(_:)` into `.unlimited`.
        case returnedDemandBecomesUnlimited
        /// A second `cancel()` waits for a teardown signal the first one never sends: it hangs.
        case hangsOnSecondCancel
        /// After each delivery the emission loop checks for a cancel made from inside `receive`, then
        /// prepares the next value (slowly, 50 µs) and resets `cancelled` to `false` — overwriting a
        /// `cancel()` made meanwhile on another thread.
        case overwritesConcurrentCancel
    }

    var count: Int? = 5
    var flaw: Flaw?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        if flaw == .sendsBeforeSubscription {
            _ = subscriber.receive(0)
        }
        subscriber.receive(subscription: Inner(downstream: subscriber, count: count, flaw: flaw))
        if flaw == .subscribesTwice {
            subscriber.receive(subscription: Inner(downstream: subscriber, count: count, flaw: flaw))
        }
    }

    final class Inner<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int, S.Failure == Never {
        private struct State {
            var downstream: S?
            var demand = Subscribers.Demand.none
            var next = 1
            var pumping = false
            var cancelled = false
            var finished = false
        }

        /// What the pump does next, decided under the lock.
        private enum Step {
            case value(Int)
            case finish
            case stop
        }

        private let lock = Lock()
        private var state: State
        private let count: Int?
        private let flaw: Flaw?

        init(downstream: S, count: Int?, flaw: Flaw?) {
            state = State(downstream: downstream)
            self.count = count
            self.flaw = flaw
        }

        func request(_ demand: Subscribers.Demand) {
            precondition(demand != .none, "zero demand")
            let downstream = lock.withLock { () -> S? in
                state.demand += demand
                if flaw == .deliversConcurrently { return state.downstream }
                guard !state.pumping, !state.cancelled, !state.finished, let downstream = state.downstream else { return nil }
                state.pumping = true
                return downstream
            }
            guard let downstream else { return }
            if flaw == .deliversConcurrently {
                deliverOnThisThread(downstream)
            } else {
                pump(downstream)
            }
        }

        /// Sends while there is demand; one thread at a time (the `pumping` flag).
        private func pump(_ downstream: S) {
            let checksCancelEachTime = flaw != .sendsAfterCancel
            while true {
                let step = lock.withLock { () -> Step in
                    if state.cancelled && checksCancelEachTime {
                        state.pumping = false
                        return .stop
                    }
                    if let count, state.next > count {
                        state.finished = true
                        state.pumping = false
                        if flaw != .retainsSubscriber { state.downstream = nil }
                        return .finish
                    }
                    guard state.demand > 0 || flaw == .ignoresDemand else {
                        state.pumping = false
                        return .stop
                    }
                    if state.demand > 0 { state.demand -= 1 }
                    state.next += 1
                    return .value(state.next - 1)
                }
                switch step {
                case .stop:
                    return
                case .finish:
                    downstream.receive(completion: .finished)
                    if flaw == .completesTwice { downstream.receive(completion: .finished) }
                    if flaw == .sendsAfterCompletion { _ = downstream.receive(99) }
                    return
                case .value(let value):
                    let more = downstream.receive(value)
                    if flaw == .overwritesConcurrentCancel {
                        // A cancel made from inside receive is seen...
                        if lock.withLock({ state.cancelled }) { return }
                        usleep(50)  // ...but not one made on another thread while the next value is prepared:
                        lock.withLock {
                            state.cancelled = false  // "ready for the next round"
                            state.demand += more
                        }
                        continue
                    }
                    lock.withLock {
                        if flaw == .returnedDemandBecomesUnlimited && more > 0 {
                            state.demand = .unlimited
                        } else {
                            state.demand += more
                        }
                    }
                }
            }
        }

        /// The `deliversConcurrently` flaw: demand is counted correctly, but each requesting thread
        /// delivers what it claims itself, slowly, while others may be doing the same.
        private func deliverOnThisThread(_ downstream: S) {
            while true {
                let step = lock.withLock { () -> Step in
                    guard !state.cancelled, !state.finished else { return .stop }
                    if let count, state.next > count {
                        state.finished = true
                        state.downstream = nil
                        return .finish
                    }
                    guard state.demand > 0 else { return .stop }
                    state.demand -= 1
                    state.next += 1
                    return .value(state.next - 1)
                }
                switch step {
                case .stop:
                    return
                case .finish:
                    downstream.receive(completion: .finished)
                    return
                case .value(let value):
                    usleep(300)  // a slow producer: widens the window in which two threads deliver
                    let more = downstream.receive(value)
                    lock.withLock { state.demand += more }
                }
            }
        }

        func cancel() {
            let again = lock.withLock { state.cancelled }
            if again && flaw == .hangsOnSecondCancel {
                DispatchSemaphore(value: 0).wait()  // the teardown it waits for was the first cancel's
            }
            let released = lock.withLock { () -> S? in
                state.cancelled = true
                guard flaw != .retainsSubscriber else { return nil }
                defer { state.downstream = nil }
                return state.downstream
            }
            _ = released
        }
    }
}

/// The articles' Pep Boys publisher with its backpressure `limit`, as written there: not
/// thread-safe, and it calls out with `downstream` captured before the loop.
struct ArticlePepBoys: Publisher {
    typealias Output = String
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == String, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber))
    }

    final class Inner<S: Subscriber>: Subscription where S.Input == String, S.Failure == Never {
        var downstream: S?
        var boys = Array(["Manny", "Moe", "Jack"].reversed())
        var limit = Subscribers.Demand.none

        init(downstream: S) {
            self.downstream = downstream
        }

        func request(_ demand: Subscribers.Demand) {
            guard let downstream = self.downstream else { return }
            limit += demand
            while let boy = boys.popLast(), limit > .none {
                let newDemand = downstream.receive(boy)
                limit -= 1
                limit += newDemand
                if boys.isEmpty {
                    downstream.receive(completion: .finished)
                    self.downstream = nil
                    return
                }
            }
        }

        func cancel() {
            downstream = nil
        }
    }
}

/// Holds a plain (non-recursive) lock while it calls `receive`, and takes the same lock in
/// `request` and `cancel`: a re-entrant call from inside `receive` deadlocks.
struct DeadlockingPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber))
    }

    final class Inner<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int, S.Failure == Never {
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private var downstream: S?
        private var next = 1

        init(downstream: S) {
            self.downstream = downstream
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_NORMAL))
            pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
        }

        // Never destroyed: a deadlocked thread may still be waiting on it.

        func request(_ demand: Subscribers.Demand) {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            var demand = demand
            while demand > 0, next <= 3, let downstream {
                demand -= 1
                next += 1
                demand += downstream.receive(next - 1)  // calls out with the lock held: the bug
            }
            if next > 3, let downstream {
                self.downstream = nil
                downstream.receive(completion: .finished)
            }
        }

        func cancel() {
            pthread_mutex_lock(mutex)
            downstream = nil
            pthread_mutex_unlock(mutex)
        }
    }
}

/// A hand-written subject that never forgets a subscriber: it keeps every one in its list, even
/// after cancel and completion.
final class LeakyRegistry: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    private let subscribers = Protected<[AnySubscriber<Int, Never>]>([])

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscribers.withLock { $0.append(AnySubscriber(subscriber)) }
        subscriber.receive(subscription: Subscriptions.empty)
    }

    /// Sends `.finished` to every subscriber it knows (and keeps them).
    func finish() {
        for subscriber in subscribers.withLock({ $0 }) {
            subscriber.receive(completion: .finished)
        }
    }
}

/// Sends a value every millisecond from a background queue, `count` of them, then finishes —
/// correctly: demand counted under a lock, deliveries serialised on one queue, nothing after
/// cancel. Unless `ignoresCancel`: then `cancel()` does nothing.
struct Ticker: Publisher {
    typealias Output = Int
    typealias Failure = Never

    var count = 5
    var ignoresCancel = false

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: AnySubscriber(subscriber), count: count,
                                               ignoresCancel: ignoresCancel))
    }

    /// Not generic: the closures it sends to its queue then capture no generic metadata.
    final class Inner: Subscription, @unchecked Sendable {
        typealias S = AnySubscriber<Int, Never>

        private struct State {
            var downstream: S?
            var demand = Subscribers.Demand.none
            var next = 1
            var scheduled = false
        }

        private enum Step {
            case value(Int, S)
            case finish(S)
            case idle
        }

        private let lock = Lock()
        private var state: State
        private let count: Int
        private let ignoresCancel: Bool
        private let queue = DispatchQueue(label: "Ticker")

        init(downstream: S, count: Int, ignoresCancel: Bool) {
            state = State(downstream: downstream)
            self.count = count
            self.ignoresCancel = ignoresCancel
        }

        func request(_ demand: Subscribers.Demand) {
            let schedule = lock.withLock { () -> Bool in
                state.demand += demand
                guard !state.scheduled, state.downstream != nil else { return false }
                state.scheduled = true
                return true
            }
            if schedule { tick() }
        }

        private func tick() {
            queue.asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in
                let step = lock.withLock { () -> Step in
                    guard let downstream = state.downstream else { return .idle }
                    if state.next > count {
                        state.downstream = nil
                        return .finish(downstream)
                    }
                    guard state.demand > 0 else {
                        state.scheduled = false
                        return .idle
                    }
                    state.demand -= 1
                    state.next += 1
                    return .value(state.next - 1, downstream)
                }
                switch step {
                case .idle:
                    return
                case .finish(let downstream):
                    downstream.receive(completion: .finished)
                case .value(let value, let downstream):
                    let more = downstream.receive(value)
                    lock.withLock { state.demand += more }
                    tick()
                }
            }
        }

        func cancel() {
            guard !ignoresCancel else { return }
            let released = lock.withLock { () -> S? in
                defer { state.downstream = nil }
                return state.downstream
            }
            _ = released
        }
    }
}

/// On request, sends values in an endless loop, ignoring demand and cancel.
struct Runaway: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber))
    }

    final class Inner<S: Subscriber>: Subscription where S.Input == Int, S.Failure == Never {
        private let downstream: S
        init(downstream: S) { self.downstream = downstream }

        func request(_ demand: Subscribers.Demand) {
            var value = 0
            while true {
                value += 1
                _ = downstream.receive(value)
            }
        }

        func cancel() {}
    }
}

/// Correct, except that a second `cancel()` trips a precondition: not idempotent (rule 4), which
/// crashes the process — only an exit test can observe it.
struct CrashesOnSecondCancel: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber))
    }

    final class Inner<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int, S.Failure == Never {
        private let lock = Lock()
        private var state: (downstream: S?, cancelled: Bool)

        init(downstream: S) { state = (downstream, false) }

        func request(_ demand: Subscribers.Demand) {
            guard let downstream = lock.withLock({ () -> S? in
                defer { state.downstream = nil }
                return state.downstream
            }) else { return }
            _ = downstream.receive(1)
            downstream.receive(completion: .finished)
        }

        func cancel() {
            let released = lock.withLock { () -> S? in
                precondition(!state.cancelled, "cancelled twice")
                state.cancelled = true
                defer { state.downstream = nil }
                return state.downstream
            }
            _ = released
        }
    }
}

/// Records what the kit asks of the publisher's subscriptions: demands, cancels, and the threads
/// they come from.
final class CallLog: Sendable {
    enum Call: Equatable, Sendable {
        case request(Subscribers.Demand)
        case cancel
    }

    private let state = Protected<(calls: [Call], threads: Set<UInt>)>(([], []))

    func append(_ call: Call) {
        #if canImport(Darwin)
        let thread = UInt(bitPattern: pthread_self())
        #else
        let thread = UInt(pthread_self())
        #endif
        state.withLock {
            $0.calls.append(call)
            $0.threads.insert(thread)
        }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    var threadCount: Int { state.withLock { $0.threads.count } }
}

/// A correct publisher — a `Toy` of `count` values, or when `quiet` one that never sends
/// anything — that logs every request and cancel it receives.
struct Spy: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let log: CallLog
    var count = 5
    var quiet = false

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        let logging = Logging(downstream: subscriber, log: log)
        if quiet {
            Empty<Int, Never>(completeImmediately: false).receive(subscriber: logging)
        } else {
            Toy(count: count).receive(subscriber: logging)
        }
    }

    /// Sits between `Toy` and the subscriber, logging what the subscriber asks.
    final class Logging<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
    where Downstream.Input == Int, Downstream.Failure == Never {
        private let lock = Lock()
        private var downstream: Downstream?
        private var upstream: (any Subscription)?
        private let log: CallLog

        init(downstream: Downstream, log: CallLog) {
            self.downstream = downstream
            self.log = log
        }

        func receive(subscription: any Subscription) {
            let downstream = lock.withLock { () -> Downstream? in
                upstream = subscription
                return self.downstream
            }
            downstream?.receive(subscription: self)
        }

        func receive(_ input: Int) -> Subscribers.Demand {
            lock.withLock { downstream }?.receive(input) ?? .none
        }

        func receive(completion: Subscribers.Completion<Never>) {
            let (downstream, upstream) = lock.withLock { () -> (Downstream?, (any Subscription)?) in
                defer {
                    self.downstream = nil
                    self.upstream = nil
                }
                return (self.downstream, self.upstream)
            }
            _ = upstream
            downstream?.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            log.append(.request(demand))
            lock.withLock { upstream }?.request(demand)
        }

        func cancel() {
            log.append(.cancel)
            let (downstream, upstream) = lock.withLock { () -> (Downstream?, (any Subscription)?) in
                defer {
                    self.downstream = nil
                    self.upstream = nil
                }
                return (self.downstream, self.upstream)
            }
            _ = downstream
            upstream?.cancel()
        }
    }
}

/// Never calls `receive(subscription:)` (nor anything else).
struct Silent: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
}

/// Publishes 1...`count`, honouring demand, but delivers in batches taken under the lock: a request
/// takes every value it can pay for and delivers them outside the lock. A request made from inside
/// `receive(_:)` starts a nested batch that overtakes the rest of the outer one: under re-entrant
/// demand the values come out of order (1, 3, 4, 5, 2 for `.max(2)` and one more per value).
struct Batcher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    var count = 5

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber, count: count))
    }

    final class Inner<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int, S.Failure == Never {
        private struct State {
            var downstream: S?
            var demand = Subscribers.Demand.none
            var next = 1
            var batchesInFlight = 0
        }

        private let lock = Lock()
        private var state: State
        private let count: Int

        init(downstream: S, count: Int) {
            state = State(downstream: downstream)
            self.count = count
        }

        func request(_ demand: Subscribers.Demand) {
            precondition(demand != .none, "zero demand")
            let (batch, downstream) = lock.withLock { () -> ([Int], S?) in
                guard let downstream = state.downstream else { return ([], nil) }
                state.demand += demand
                var batch: [Int] = []
                while state.demand > 0 && state.next <= count {
                    state.demand -= 1
                    batch.append(state.next)
                    state.next += 1
                }
                state.batchesInFlight += 1
                return (batch, downstream)
            }
            guard let downstream else { return }
            for value in batch {
                guard lock.withLock({ state.downstream != nil }) else { break }
                let more = downstream.receive(value)
                if more > 0 { request(more) }
            }
            let finish = lock.withLock { () -> Bool in
                state.batchesInFlight -= 1
                guard state.batchesInFlight == 0, state.next > count, state.downstream != nil else { return false }
                state.downstream = nil
                return true
            }
            if finish { downstream.receive(completion: .finished) }
        }

        func cancel() {
            let released = lock.withLock { () -> S? in
                defer { state.downstream = nil }
                return state.downstream
            }
            _ = released
        }
    }
}
