import Foundation
import SluiceCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Returns a publisher that wraps a URL session data task for a given URL.
    ///
    /// The publisher publishes data when the task completes, or terminates if the task fails with
    /// an error. Nothing is fetched before a subscriber requests a value.
    ///
    /// - Parameter url: The URL for which to create a data task.
    /// - Returns: A publisher that wraps a data task for the URL.
    public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
        DataTaskPublisher(request: URLRequest(url: url), session: self)
    }

    /// Returns a publisher that wraps a URL session data task for a given URL request.
    ///
    /// The publisher publishes data when the task completes, or terminates if the task fails with
    /// an error. Nothing is fetched before a subscriber requests a value.
    ///
    /// - Parameter request: The URL request for which to create a data task.
    /// - Returns: A publisher that wraps a data task for the URL request.
    public func dataTaskPublisher(for request: URLRequest) -> DataTaskPublisher {
        DataTaskPublisher(request: request, session: self)
    }

    /// A publisher that delivers the results of performing URL session data tasks.
    ///
    /// Each subscription makes its own data task, on the first request for demand (a request made
    /// inside `receive(subscription:)` counts), and resumes it on every request. When the task
    /// completes the subscriber receives one value — the data (empty if the server sent none) and
    /// the response — and `.finished`; or a `URLError` failure (an error of another type, or a
    /// completion with neither a response nor an error, becomes `URLError(.unknown)`). Cancelling
    /// the subscription cancels the task; nothing is delivered after it. The subscription may be
    /// requested from and cancelled on any thread; the result arrives on the session's delegate
    /// queue.
    public struct DataTaskPublisher: Publisher, Equatable, @unchecked Sendable {
        /// The kind of values published by this publisher: the data and the response.
        public typealias Output = (data: Data, response: URLResponse)

        /// The kind of errors this publisher might publish.
        public typealias Failure = URLError

        /// The URL request performed by the data task associated with this publisher.
        public let request: URLRequest

        /// The URL session that performs the data task associated with this publisher.
        public let session: URLSession

        /// Creates a data task publisher from the provided URL request and URL session.
        ///
        /// - Parameters:
        ///   - request: The URL request from which to create a URL session data task.
        ///   - session: The URL session to create the data task.
        public init(request: URLRequest, session: URLSession) {
            self.request = request
            self.session = session
        }

        /// Attaches the subscriber: it receives a subscription that begins the task on demand.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            subscriber.receive(subscription: DataTaskSubscription(parent: self, downstream: subscriber))
        }

        /// Two data task publishers are equal when they perform equal requests with the same
        /// session.
        public static func == (lhs: DataTaskPublisher, rhs: DataTaskPublisher) -> Bool {
            lhs.request == rhs.request && lhs.session === rhs.session
        }
    }
}

/// The subscription of a ``Foundation/URLSession/DataTaskPublisher``. `parent` doubles as the
/// "still running" flag: whichever comes first — the task's completion or a cancel — clears it
/// under the lock, and the other then does nothing.
final class DataTaskSubscription<Downstream: Subscriber>: Subscription, DataTaskCompletionHandler,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
    private let lock = Lock()
    private var parent: URLSession.DataTaskPublisher?
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var task: URLSessionDataTask?
    private var creatingTask = false

    init(parent: URLSession.DataTaskPublisher, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    /// What a request leads to, decided under the lock and done after it.
    private enum Step {
        case nothing
        case create(URLSession.DataTaskPublisher)
        case resume(URLSessionDataTask)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let step: Step = lock.withLock {
            guard let parent else { return .nothing }
            self.demand += demand
            if let task { return .resume(task) }
            if creatingTask { return .nothing }
            creatingTask = true
            return .create(parent)
        }
        switch step {
        case .nothing:
            return
        case .resume(let task):
            task.resume()
        case .create(let parent):
            // The session is called with the lock released; the completion handler keeps this
            // subscription until the task lets go of the handler, after completing.
            // The handler reaches this subscription through a non-generic protocol, so that the
            // `@Sendable` closure captures no metadata of the (maybe non-Sendable) subscriber type.
            let handler: any DataTaskCompletionHandler = self
            let task = parent.session.dataTask(with: parent.request) { data, response, error in
                handler.complete(data: data, response: response, error: error)
            }
            let stillRunning = lock.withLock { () -> Bool in
                creatingTask = false
                guard self.parent != nil else { return false }
                self.task = task
                return true
            }
            if stillRunning { task.resume() }
        }
    }

    /// The task's completion handler: delivers once, with the lock released. The subscriber stays
    /// attached while it receives the value, so that a cancel made inside `receive(_:)` is seen
    /// before `.finished` would follow.
    func complete(data: Data?, response: URLResponse?, error: (any Error)?) {
        guard let response, error == nil else {
            detach()?.receive(completion: .failure(error as? URLError ?? URLError(.unknown)))
            return
        }
        let downstream: Downstream? = lock.withLock {
            guard parent != nil else { return nil }
            task = nil
            return self.downstream
        }
        guard let downstream else { return }
        _ = downstream.receive((data: data ?? Data(), response: response))
        if detach() != nil { downstream.receive(completion: .finished) }
    }

    /// Under the lock: lets go of everything and returns the subscriber, unless a cancel or the
    /// completion came first.
    private func detach() -> Downstream? {
        lock.withLock {
            guard parent != nil, let downstream else { return nil }
            finish()
            return downstream
        }
    }

    func cancel() {
        let task: URLSessionDataTask? = lock.withLock {
            guard parent != nil else { return nil }
            defer { finish() }
            return self.task
        }
        task?.cancel()
    }

    /// Under the lock: lets go of everything, so that nothing more is delivered.
    private func finish() {
        parent = nil
        downstream = nil
        demand = .none
        task = nil
    }

    var description: String { "DataTaskPublisher" }

    var playgroundDescription: Any { description }

    var customMirror: Mirror {
        let (task, downstream, parent, demand) = lock.withLock { (self.task, self.downstream, self.parent, self.demand) }
        return Mirror(self, children: [
            ("task", task as Any), ("downstream", downstream as Any), ("parent", parent as Any), ("demand", demand),
        ])
    }
}

/// What a data task's completion handler calls.
private protocol DataTaskCompletionHandler: AnyObject, Sendable {
    func complete(data: Data?, response: URLResponse?, error: (any Error)?)
}
