/// A publisher of the elements of an `AsyncSequence`, pulled only as the subscriber asks for
/// them — not part of Apple's Combine.
///
/// Each subscription iterates the sequence in a task of its own, started on the first demand. The
/// task takes the next element only while the subscriber has outstanding demand, so nothing is
/// produced ahead of it; when the sequence ends, the subscriber receives `.finished`, and when it
/// throws, `.failure`. Cancelling the subscription cancels the task. Elements are delivered on the
/// task's executor, one at a time.
///
/// ```swift
/// let lines = url.lines.asPublisher      // AsyncLineSequence → publisher of String
/// ```
public struct AsyncSequencePublisher<Base: AsyncSequence & Sendable>: Publisher {
    /// The kind of values published: the sequence's elements.
    public typealias Output = Base.Element

    /// The kind of errors published: what the sequence throws (`Never` if it cannot).
    public typealias Failure = Base.Failure

    /// The sequence to iterate.
    public let base: Base

    /// Creates a publisher of the elements of `base`.
    @inlinable
    public init(_ base: Base) {
        self.base = base
    }

    /// Attaches the subscriber; iteration starts on its first request.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: AsyncSequenceSubscription(base: base, downstream: subscriber))
    }
}

extension AsyncSequence where Self: Sendable {
    /// The sequence's elements as a publisher that pulls each one only when its subscriber has
    /// demand for it (the inverse of Combine's `values`).
    @inlinable
    public var asPublisher: AsyncSequencePublisher<Self> { AsyncSequencePublisher(self) }
}

/// The subscription of ``AsyncSequencePublisher``: a task that pulls while there is demand.
///
/// Inlinable, so that the client specialises it for its sequence and subscriber: the task's loop
/// then runs without looking up generic metadata for every element.
@usableFromInline
final class AsyncSequenceSubscription<Base: AsyncSequence & Sendable, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, @unchecked Sendable
where Downstream.Input == Base.Element, Downstream.Failure == Base.Failure {
    @usableFromInline let lock = Lock()
    @usableFromInline let base: Base
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
    @exclusivity(unchecked) @usableFromInline var task: Task<Void, Never>?
    @exclusivity(unchecked) @usableFromInline var waiter: CheckedContinuation<Void, Never>?
    /// Whether the task has been started (set under the lock by the first request: two requests
    /// racing on other threads must not both start one — `task` is only stored once it exists).
    @exclusivity(unchecked) @usableFromInline var started = false
    /// Starts the task that runs ``run()``: made in `init`, where the types are concrete, so that
    /// the task runs the specialised loop even though `request(_:)` arrives through
    /// `any Subscription` (which runs this class's code unspecialised).
    @usableFromInline let startEntry: (AsyncSequenceSubscription) -> Task<Void, Never>

    @inlinable
    init(base: Base, downstream: Downstream) {
        self.base = base
        self.downstream = downstream
        startEntry = { subscription in
            // The task captures the action, not the subscription, so it sees no metatype of the
            // (maybe non-Sendable) subscriber; the action is the specialised loop.
            let action = TaskAction { await subscription.run() }
            return Task { await action.run() }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (start, waiter): (Bool, CheckedContinuation<Void, Never>?) = lock.withLock {
            guard downstream != nil else { return (false, nil) }
            self.demand += demand
            defer {
                self.waiter = nil
                started = true
            }
            return (!started, self.waiter)
        }
        waiter?.resume()
        guard start else { return }
        let task = startEntry(self)
        let keep = lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            self.task = task
            return true
        }
        if !keep { task.cancel() }
    }

    /// Pulls elements while there is demand, until the end, a failure or a cancel.
    @inlinable
    func run() async {
        var iterator = base.makeAsyncIterator()
        while await demandArrived() {
            do {
                guard let element = try await iterator.next(isolation: nil) else {
                    finish(.finished)
                    return
                }
                deliver(element)
            } catch {
                finish(.failure(error))
                return
            }
        }
    }

    /// Waits until the subscriber has demand; `false` once cancelled.
    @inlinable
    func demandArrived() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                guard downstream != nil, demand == .none else { return true }
                waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        return lock.withLock { downstream != nil } && !Task.isCancelled
    }

    @inlinable
    func deliver(_ element: Base.Element) {
        guard let downstream = takeDemand() else { return }
        let more = downstream.receive(element)
        if more > .none { lock.withLock { if self.downstream != nil { demand += more } } }
    }

    /// Under the lock: claims one unit of demand, and the subscriber to deliver to.
    @inlinable
    func takeDemand() -> Downstream? {
        lock.withLock {
            guard let downstream, demand > .none else { return nil }
            demand -= 1
            return downstream
        }
    }

    @inlinable
    func finish(_ completion: Subscribers.Completion<Base.Failure>) {
        let downstream: Downstream? = lock.withLock {
            defer {
                self.downstream = nil
                task = nil
            }
            return self.downstream
        }
        downstream?.receive(completion: completion)
    }

    @inlinable
    func cancel() {
        let (task, waiter): (Task<Void, Never>?, CheckedContinuation<Void, Never>?) = lock.withLock {
            downstream = nil
            defer {
                self.task = nil
                self.waiter = nil
            }
            return (self.task, self.waiter)
        }
        task?.cancel()
        waiter?.resume()
    }

    @usableFromInline
    var description: String { "AsyncSequencePublisher" }
}

/// What a bridge's task runs, reached through a non-generic protocol so that the `@Sendable` task
/// closure captures no metadata of the (maybe non-Sendable) subscriber type.
protocol AsyncWork: AnyObject, Sendable {
    func run() async
}

/// An `async` action made where a subscription's types are concrete, carried into a task: the task
/// closure captures only this (no metatype of a subscriber that may not be `Sendable`). Its action
/// touches only the subscription that made it, which is `Sendable` (guarded by its lock).
@usableFromInline
struct TaskAction: @unchecked Sendable {
    @usableFromInline let run: () async -> Void

    @inlinable
    init(_ run: @escaping () async -> Void) {
        self.run = run
    }
}
