import Foundation
import Sluice

extension FakeSession {
    /// A publisher that fetches one URL and delivers its data once, then finishes — or fails —
    /// after the manner of `URLSession.DataTaskPublisher`.
    ///
    /// The request starts when the subscriber first asks for a value (and not before its
    /// `receive(subscription:)` has returned); the response is delivered at most once, and nothing
    /// is delivered after a cancel (which also cancels the task). The subscription's state is guarded by a lock, and every call out — to the task, to
    /// the subscriber — happens after the lock is released.
    ///
    /// ```swift
    /// let cancellable = session.dataTaskPublisher(for: url)
    ///     .map { String(decoding: $0.data, as: UTF8.self) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public struct DataTaskPublisher: Publisher {
        /// The downloaded bytes and the response that came with them.
        public typealias Output = (data: Data, response: Response)
        /// Why the transfer failed.
        public typealias Failure = TransferError

        /// The URL to fetch.
        public let url: URL
        /// The session that fetches it.
        public let session: FakeSession

        /// Creates a publisher that fetches `url` with `session`.
        public init(url: URL, session: FakeSession) {
            self.url = url
            self.session = session
        }

        /// Hands the subscriber a subscription that begins the request on the first demand.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = Inner(parent: self, downstream: subscriber)
            subscriber.receive(subscription: subscription)
            subscription.subscriberIsReady()
        }
    }

    /// A publisher that fetches `url` once, when a subscriber first asks for it.
    public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
        DataTaskPublisher(url: url, session: self)
    }
}

extension FakeSession.DataTaskPublisher {
    /// The subscription. `parent` doubles as the "still active" flag: it is cleared, under the
    /// lock, by whichever comes first — the response or a cancel — so the other does nothing.
    final class Inner<Downstream: Subscriber>: Subscription, DataTaskResponseHandler, CustomStringConvertible,
        @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let lock = NSLock()
        private var parent: FakeSession.DataTaskPublisher?
        private var downstream: Downstream?
        private var demand = Subscribers.Demand.none
        private var task: FakeSession.DataTask?
        private var handshakeDone = false
        private var cancelled = false

        init(parent: FakeSession.DataTaskPublisher, downstream: Downstream) {
            self.parent = parent
            self.downstream = downstream
        }

        /// Called by the publisher once `receive(subscription:)` has returned. A request made
        /// inside `receive(subscription:)` only records its demand; the task starts here, so the
        /// response (which comes on another thread) cannot reach the subscriber while it is still
        /// inside `receive(subscription:)`.
        func subscriberIsReady() {
            let task: FakeSession.DataTask? = lock.withLock {
                handshakeDone = true
                return demand > .none ? taskToResume() : nil
            }
            task?.resume()
        }

        /// Adds the demand and, once the handshake is over, starts the task — `resume()` on a task
        /// already running does nothing.
        func request(_ demand: Subscribers.Demand) {
            precondition(demand > .none, "DataTaskPublisher: a subscriber must request at least one value")
            let task: FakeSession.DataTask? = lock.withLock {
                guard parent != nil else { return nil }   // cancelled or done
                self.demand += demand
                return handshakeDone ? taskToResume() : nil
            }
            task?.resume()
        }

        /// Under the lock: the task, created on first use; `nil` once cancelled or done.
        private func taskToResume() -> FakeSession.DataTask? {
            guard let parent else { return nil }
            if task == nil {
                // The handler reaches this subscription through a non-generic protocol, so the
                // `@Sendable` closure captures no metadata of the (maybe non-Sendable) subscriber
                // type. Creating the task calls nothing back.
                task = parent.session.dataTask(with: parent.url) {
                    [weak handler = self as any DataTaskResponseHandler] result in
                    handler?.handleResponse(result)
                }
            }
            return task
        }

        /// Runs on the session's queue. Clears everything under the lock so that the value can go
        /// out only once, then delivers with the lock released.
        func handleResponse(_ result: Result<Output, Failure>) {
            let downstream: Downstream? = lock.withLock {
                guard demand > .none, parent != nil, let downstream = self.downstream else { return nil }
                parent = nil
                self.downstream = nil
                demand = .none
                task = nil
                return downstream
            }
            guard let downstream else { return }
            switch result {
            case .success(let output):
                _ = downstream.receive(output)
                // The subscriber may have cancelled from inside `receive(_:)`: then no completion.
                if lock.withLock({ !cancelled }) {
                    downstream.receive(completion: .finished)
                }
            case .failure(let error):
                downstream.receive(completion: .failure(error))
            }
        }

        /// Releases everything and cancels the task. Idempotent; after it nothing is delivered.
        func cancel() {
            let task: FakeSession.DataTask? = lock.withLock {
                cancelled = true
                guard parent != nil else { return nil }
                parent = nil
                downstream = nil
                demand = .none
                defer { self.task = nil }
                return self.task
            }
            task?.cancel()
        }

        var description: String { "DataTaskPublisher" }
    }
}

/// What a data task's completion handler calls.
private protocol DataTaskResponseHandler: AnyObject, Sendable {
    func handleResponse(_ result: Result<FakeSession.DataTaskPublisher.Output, FakeSession.TransferError>)
}
