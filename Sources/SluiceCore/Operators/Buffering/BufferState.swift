// The value-type half of `buffer`: the buffered values, the demand on both sides and the
// decisions taken under the subscription's lock. `BufferSubscription` (in Publishers.Buffer.swift)
// performs them.

/// What a full buffer does with an arriving element (``Publishers/BufferingStrategy`` without
/// its closure, which the subscription keeps).
@usableFromInline
enum BufferOverflow {
    case dropNewest, dropOldest, fail
}

/// The buffer's state: the queued elements, the downstream's demand, the completion waiting its
/// turn and who is draining. A value type whose transitions say what to do next; the owner
/// (``BufferSubscription``) keeps it behind its lock and performs the steps once unlocked.
///
/// One thread at a time drains the buffer (`isDraining`): anything arriving meanwhile — a value,
/// a request — only changes the state, and the draining thread picks it up, in order.
@usableFromInline
struct BufferState<Output, Failure: Error> {
    /// Where the buffer stands with its upstream.
    @usableFromInline
    enum Status: CustomStringConvertible {
        case awaitingSubscription, subscribed, closed

        @usableFromInline var description: String {
            switch self {
            case .awaitingSubscription: "awaitingSubscription"
            case .subscribed: "subscribed"
            case .closed: "closed"
            }
        }
    }

    /// What became of a value from the upstream.
    @usableFromInline
    enum Arrival {
        /// Buffered; drain now (this thread now owns the drain).
        case drain
        /// Buffered (possibly in place of the oldest element), or dropped.
        case stored
        /// The buffer was full and the strategy is `.customError`: make the error.
        case overflow
    }

    /// The next thing the draining thread does.
    @usableFromInline
    enum Step {
        case value(Output)
        case completion(Subscribers.Completion<Failure>)
        /// An upstream failure that arrived during the drain: delivered, then the drain goes on
        /// handing out what the downstream asked for (as Apple's Combine does).
        case interruption(Subscribers.Completion<Failure>)
        case idle
    }

    @usableFromInline let capacity: Int
    @usableFromInline let overflow: BufferOverflow
    /// Buffered elements: `items[head...]`.
    @usableFromInline var items = ContiguousArray<Output>()
    @usableFromInline var head = 0
    @usableFromInline var demand = Subscribers.Demand.none
    @usableFromInline var status = Status.awaitingSubscription
    /// The completion received (or made by an overflow), not yet delivered.
    @usableFromInline var terminal: Subscribers.Completion<Failure>?
    /// A thread is draining the buffer.
    @usableFromInline var isDraining = false
    /// The `.customError` closure is running.
    @usableFromInline var isMakingError = false
    /// The downstream's `receive(subscription:)` has returned.
    @usableFromInline var downstreamSubscribed = false
    /// An upstream failure arrived during a drain: the draining thread delivers it next.
    @usableFromInline var failedDuringDrain = false

    @inlinable
    init(capacity: Int, overflow: BufferOverflow) {
        self.capacity = max(capacity, 0)
        self.overflow = overflow
    }

    /// How many elements wait in the buffer.
    @inlinable
    var count: Int { items.count - head }

    @inlinable
    var hasFailed: Bool {
        if case .failure = terminal { return true }
        return false
    }

    /// A value from the upstream.
    @inlinable
    mutating func receive(_ value: Output) -> Arrival {
        precondition(!isMakingError,
                     "buffer(size:prefetch:whenFull:): the .customError closure sent a value to the buffer")
        guard status == .subscribed, !hasFailed else { return .stored }
        if count >= capacity {
            switch overflow {
            case .dropNewest:
                return .stored
            case .dropOldest:
                guard count > 0 else { return .stored }
                _ = popFirst()
            case .fail:
                isMakingError = true
                return .overflow
            }
        }
        items.append(value)
        return startDrain() ? .drain : .stored
    }

    /// The `.customError` closure returned `error`.
    @inlinable
    mutating func overflowed(with error: Failure) {
        isMakingError = false
        if terminal == nil { terminal = .failure(error) }
    }

    /// The downstream requested more. Returns whether this thread is to drain.
    @inlinable
    mutating func request(_ more: Subscribers.Demand) -> Bool {
        guard status != .closed else { return false }
        demand += more
        return startDrain()
    }

    /// Takes the drain if nobody holds it and there is something to do.
    @inlinable
    mutating func startDrain() -> Bool {
        guard status == .subscribed, downstreamSubscribed, !isDraining, demand > 0 else { return false }
        isDraining = true
        return true
    }

    /// The next step of the drain in progress; clears `isDraining` when there is nothing to do.
    @inlinable
    mutating func nextStep() -> Step {
        if failedDuringDrain, let completion = terminal {
            failedDuringDrain = false
            status = .closed
            self.terminal = nil
            return .interruption(completion)
        }
        if demand > 0, count > 0 {
            demand -= 1
            return .value(popFirst())
        }
        isDraining = false
        if status == .subscribed, let completion = terminal {
            switch completion {
            case .failure:
                return close(with: completion)
            case .finished where count == 0 && demand > 0:
                return close(with: completion)
            case .finished:
                break
            }
        }
        return .idle
    }

    /// The value of a `.value` step was delivered and the downstream returned `more`.
    @inlinable
    mutating func delivered(more: Subscribers.Demand) {
        demand += more
    }

    /// The upstream completed. Returns the completion to deliver at once (a failure), if any.
    @inlinable
    mutating func receive(completion: Subscribers.Completion<Failure>) -> Step {
        guard status == .subscribed, terminal == nil else { return .idle }
        terminal = completion
        switch completion {
        case .failure:
            if isDraining {
                // The draining thread delivers it after the value in hand, which keeps the
                // downstream's calls serialised; re-entrantly, the order is Apple's.
                failedDuringDrain = true
                return .idle
            }
            return downstreamSubscribed ? close(with: completion) : .idle
        case .finished:
            return count == 0 && demand > 0 && !isDraining && downstreamSubscribed
                ? close(with: completion) : .idle
        }
    }

    /// The downstream's `receive(subscription:)` returned: a failure that arrived meanwhile is
    /// delivered now; otherwise drains if the downstream asked for anything.
    @inlinable
    mutating func subscriptionDelivered() -> (drain: Bool, deliver: Step) {
        downstreamSubscribed = true
        if case .failure = terminal, status == .subscribed { return (false, close(with: terminal!)) }
        return (startDrain(), .idle)
    }

    /// The downstream cancelled. Returns whether the upstream is to be cancelled.
    @inlinable
    mutating func cancel() -> Bool {
        guard status == .subscribed else { return false }
        status = .closed
        terminal = nil
        items = []
        head = 0
        return true
    }

    @inlinable
    mutating func close(with completion: Subscribers.Completion<Failure>) -> Step {
        status = .closed
        terminal = nil
        return .completion(completion)
    }

    @inlinable
    mutating func popFirst() -> Output {
        let value = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return value
    }
}

