/// A publisher that runs an `async` operation and publishes its result — a `Future` for Swift
/// concurrency, not part of Apple's Combine.
///
/// Unlike `Future`, which starts its work when it is created, each subscription starts the
/// operation in a task of its own on its first demand, and cancelling the subscription cancels
/// that task. The subscriber receives the returned value and `.finished`, or the thrown error.
/// `Failure` follows the closure: `Never` for one that cannot throw, its typed error for
/// `throws(E)`, `any Error` for `throws`.
///
/// ```swift
/// AsyncFuture { try await api.user(id: 42) }     // AsyncFuture<User, any Error>
///     .sink(receiveCompletion: { … }, receiveValue: { … })
/// ```
public struct AsyncFuture<Output, Failure: Error>: Publisher, Sendable {
    private let operation: @Sendable () async throws(Failure) -> Output

    /// Creates a publisher that runs `operation` for each subscription, on its first demand.
    public init(_ operation: @escaping @Sendable () async throws(Failure) -> Output) {
        self.operation = operation
    }

    /// Attaches the subscriber; the operation starts on its first request.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: AsyncFutureSubscription(operation: operation, downstream: subscriber))
    }
}

/// The subscription of ``AsyncFuture``.
final class AsyncFutureSubscription<Output, Failure: Error, Downstream: Subscriber>: Subscription, AsyncWork,
    CustomStringConvertible, @unchecked Sendable
where Downstream.Input == Output, Downstream.Failure == Failure {
    private let lock = Lock()
    private let operation: @Sendable () async throws(Failure) -> Output
    @exclusivity(unchecked) private var downstream: Downstream?
    @exclusivity(unchecked) private var task: Task<Void, Never>?
    @exclusivity(unchecked) private var started = false

    init(operation: @escaping @Sendable () async throws(Failure) -> Output, downstream: Downstream) {
        self.operation = operation
        self.downstream = downstream
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let start: Bool = lock.withLock {
            guard downstream != nil, !started else { return false }
            started = true
            return true
        }
        guard start else { return }
        let work: any AsyncWork = self   // the task sees no generic metadata of the subscriber
        let task = Task { await work.run() }
        let keep = lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            self.task = task
            return true
        }
        if !keep { task.cancel() }
    }

    /// Runs the operation (in the subscription's task) and delivers what it gives.
    func run() async {
        complete(await Self.attempt(operation))
    }

    private static func attempt(_ operation: @Sendable () async throws(Failure) -> Output) async -> Result<Handover<Output>, Failure> {
        do throws(Failure) {
            return .success(Handover(value: try await operation()))
        } catch {
            return .failure(error)
        }
    }

    private func complete(_ result: Result<Handover<Output>, Failure>) {
        switch result {
        case .success(let output):
            // The subscriber stays attached while it receives the value, so that a cancel made
            // inside `receive(_:)` is seen before `.finished` would follow.
            guard let downstream = lock.withLock({ self.downstream }) else { return }
            _ = downstream.receive(output.value)
            if detach() != nil { downstream.receive(completion: .finished) }
        case .failure(let error):
            detach()?.receive(completion: .failure(error))
        }
    }

    /// Under the lock: lets go of the subscriber and the task, returning the subscriber if it
    /// was still attached.
    private func detach() -> Downstream? {
        lock.withLock {
            defer {
                downstream = nil
                task = nil
            }
            return downstream
        }
    }

    func cancel() {
        let task: Task<Void, Never>? = lock.withLock {
            downstream = nil
            defer { self.task = nil }
            return self.task
        }
        task?.cancel()
    }

    var description: String { "AsyncFuture" }
}
