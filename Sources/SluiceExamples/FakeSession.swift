import Dispatch
import Foundation

/// A stand-in for `URLSession`: answers requests for URLs from canned data, asynchronously, on
/// its own serial queue.
///
/// The single-value publisher example (``FakeSession/DataTaskPublisher``) needs a source that
/// completes later on another thread, as a network request does — but without a network. A
/// request for a URL the session knows completes with its data and a `200` response; any other
/// URL fails with ``FakeSession/TransferError/notFound(_:)``; a cancelled task completes with
/// ``FakeSession/TransferError/cancelled``, as `URLSessionTask.cancel()` does.
///
/// ``waitUntilIdle()`` waits for the work already scheduled, so tests and the example runner are
/// deterministic without sleeping.
public final class FakeSession: Sendable {
    /// The metadata of a successful response, a small `HTTPURLResponse`.
    public struct Response: Hashable, Sendable {
        /// The requested URL.
        public let url: URL
        /// The HTTP status code.
        public let statusCode: Int

        /// Creates a response for `url` with `statusCode`.
        public init(url: URL, statusCode: Int) {
            self.url = url
            self.statusCode = statusCode
        }
    }

    /// Why a transfer failed, a small `URLError`.
    public enum TransferError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The session has no data for the URL.
        case notFound(URL)
        /// The task was cancelled before it completed.
        case cancelled

        /// `notFound(https://…)` or `cancelled`.
        public var description: String {
            switch self {
            case .notFound(let url): "notFound(\(url.absoluteString))"
            case .cancelled: "cancelled"
            }
        }
    }

    /// A one-shot request, a small `URLSessionDataTask`: ``resume()`` starts it (once; later
    /// calls do nothing), ``cancel()`` ends it early.
    public final class DataTask: @unchecked Sendable {
        private enum State { case suspended, running, completed }

        // Guarded by `lock`: an `NSLock` (a pthread mutex, which Thread Sanitizer understands; it
        // cannot see into the standard library's `Mutex`, and reported its accesses as races).
        private let lock = NSLock()
        private var state = State.suspended
        private let url: URL
        private let session: FakeSession
        private let completionHandler: @Sendable (Result<(data: Data, response: Response), TransferError>) -> Void

        fileprivate init(
            url: URL, session: FakeSession,
            completionHandler: @escaping @Sendable (Result<(data: Data, response: Response), TransferError>) -> Void
        ) {
            self.url = url
            self.session = session
            self.completionHandler = completionHandler
        }

        /// Starts the request; the completion handler runs later on the session's queue.
        public func resume() {
            let start = lock.withLock {
                guard state == .suspended else { return false }
                state = .running
                return true
            }
            guard start else { return }
            session.queue.async { [self] in
                guard finish() else { return }
                if let data = session.responses[url] {
                    completionHandler(.success((data, Response(url: url, statusCode: 200))))
                } else {
                    completionHandler(.failure(.notFound(url)))
                }
            }
        }

        /// Cancels the request: unless it already completed, the completion handler runs with
        /// ``FakeSession/TransferError/cancelled`` on the session's queue.
        public func cancel() {
            guard finish() else { return }
            session.queue.async { [completionHandler] in completionHandler(.failure(.cancelled)) }
        }

        /// Marks the task completed; `false` if it already was.
        private func finish() -> Bool {
            lock.withLock {
                guard state != .completed else { return false }
                state = .completed
                return true
            }
        }
    }

    fileprivate let queue: DispatchQueue
    fileprivate let responses: [URL: Data]

    /// Creates a session that knows the given URLs.
    ///
    /// - Parameters:
    ///   - responses: The data served for each URL.
    ///   - queue: The serial queue on which tasks complete. A test may pass its own and suspend it
    ///     to hold responses back; by default the session makes one.
    public init(responses: [URL: Data], queue: DispatchQueue = DispatchQueue(label: "FakeSession")) {
        self.responses = responses
        self.queue = queue
    }

    /// Creates a task that fetches `url` and calls `completionHandler` with the data and response,
    /// or with the error (`URLSession`'s `(Data?, URLResponse?, Error?)`, as a `Result`).
    /// Call ``FakeSession/DataTask/resume()`` to start it.
    public func dataTask(
        with url: URL,
        completionHandler: @escaping @Sendable (Result<(data: Data, response: Response), TransferError>) -> Void
    ) -> DataTask {
        DataTask(url: url, session: self, completionHandler: completionHandler)
    }

    /// Blocks until everything already scheduled on the session's queue has run (including the
    /// completion handlers). Do not call it from a completion handler.
    public func waitUntilIdle() {
        queue.sync {}
    }
}
