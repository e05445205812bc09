#if Server
import NIOConcurrencyHelpers
import Sluice

/// The subscriber's side of work done on a task of its own, one value at a time, in the order the
/// values came — what ``PostgresEventLogAppender`` and ``PostgresNotifier`` share: it requests
/// `maxInFlight` values from the upstream, then one more each time the task asks for its next
/// value; the upstream's completion lets the task finish what is queued, then ends its values;
/// ``cancel()`` stops at once, the upstream cancelled and what is queued dropped.
final class SerialWork<Item: Sendable>: @unchecked Sendable {
    /// The upstream, whether the work was cancelled, and the task: shared with ``Values``.
    typealias Shared = NIOLockedValueBox<(upstream: (any Subscription)?, cancelled: Bool, worker: Task<Void, Never>?)>

    /// The most values queued or being worked on at once (the upstream demand).
    let maxInFlight: Int
    private let queue: AsyncStream<Item>.Continuation
    private let stream: AsyncStream<Item>
    private let state = Shared((nil, false, nil))

    init(maxInFlight: Int) {
        precondition(maxInFlight > 0, "maxInFlight must be positive")
        self.maxInFlight = maxInFlight
        (stream, queue) = AsyncStream.makeStream(of: Item.self)
    }

    /// Starts the task: `worker` reads ``Values`` (each read after the first asks the upstream for
    /// one more value), and returns once they end.
    func start(_ worker: @escaping (Values) async -> Void) {
        let values = Values(stream: stream, state: state)
        let work = UncheckedWork { await worker(values) }
        let task = Task { await work.run() }
        state.withLockedValue { $0.worker = task }
    }

    /// Keeps `subscription` (unless there is one, or the work was cancelled: it is then cancelled)
    /// and requests ``maxInFlight`` values.
    func receive(subscription: any Subscription) {
        let keep = state.withLockedValue { state -> Bool in
            guard state.upstream == nil, !state.cancelled else { return false }
            state.upstream = subscription
            return true
        }
        guard keep else { return subscription.cancel() }
        subscription.request(.max(maxInFlight))
    }

    /// Queues `item` for the task.
    func enqueue(_ item: Item) {
        queue.yield(item)
    }

    /// The upstream completed: the values end after what is queued.
    func complete() {
        state.withLockedValue { $0.upstream = nil }
        queue.finish()
    }

    /// Cancels the upstream and the task; what is queued is dropped.
    func cancel() {
        let (upstream, worker) = state.withLockedValue { state -> ((any Subscription)?, Task<Void, Never>?) in
            guard !state.cancelled else { return (nil, nil) }
            state.cancelled = true
            defer { state.upstream = nil }
            return (state.upstream, state.worker)
        }
        upstream?.cancel()
        queue.finish()
        worker?.cancel()
    }

    /// The queued values, in order, for the task; they end after the upstream's completion or at cancel.
    struct Values: AsyncSequence {
        let stream: AsyncStream<Item>
        let state: Shared

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), state: state)
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Item>.AsyncIterator
            let state: Shared
            var asked = false

            /// The next value; asking for it after the first means the last one is done: the upstream
            /// is asked for one more.
            mutating func next() async -> Item? {
                if asked { state.withLockedValue { $0.upstream }?.request(.max(1)) }
                asked = true
                if Task.isCancelled { return nil }
                return await base.next()
            }
        }
    }
}
#endif
