/// The subscriber behind ``AsyncPublisher`` and ``AsyncThrowingPublisher``: each `next()` asks the
/// upstream for one value (demand made before the subscription arrives is requested when it
/// does), waiting callers are served in order, a completion ends every wait (a failure is thrown
/// to the first waiting caller, or to the next caller if none waits), and cancelling the waiting
/// task cancels the subscription.
@usableFromInline
final class AsyncIteratorCore<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var subscription: (any Subscription)?
    /// Whether the subscription has arrived: asked for every value, where testing ``subscription``
    /// against `nil` would copy the existential through its witnesses.
    @exclusivity(unchecked) @usableFromInline var subscribed = false
    @exclusivity(unchecked) @usableFromInline var waiting: [UnsafeContinuation<Handover<Input>?, any Error>] = []
    @exclusivity(unchecked) @usableFromInline var demandBeforeSubscription = 0
    @exclusivity(unchecked) @usableFromInline var pendingFailure: Failure?
    @exclusivity(unchecked) @usableFromInline var ended = false

    @inlinable
    func receive(subscription: any Subscription) {
        let demand: Int? = lock.withLock {
            guard self.subscription == nil, !ended else { return nil }
            self.subscription = subscription
            subscribed = true
            defer { demandBeforeSubscription = 0 }
            return demandBeforeSubscription
        }
        guard let demand else {
            subscription.cancel()
            return
        }
        if demand > 0 { subscription.request(.max(demand)) }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let step: ValueStep = lock.withLock {
            guard !ended else { return .ignore }
            guard subscribed else {
                // Before the subscription Apple's ends the waits that are there, and nothing else.
                defer { waiting = [] }
                return .endWaits(waiting)
            }
            precondition(!waiting.isEmpty, "AsyncPublisher received a value it did not ask for")
            return .deliver(waiting.removeFirst())
        }
        switch consume step {
        case .deliver(let continuation):
            // Handed over to the task that awaits it: the iteration moves each value across, as
            // Apple's does for publishers of non-Sendable values.
            continuation.resume(returning: Handover(value: input))
        case .endWaits(let continuations): continuations.forEach { $0.resume(returning: nil) }
        case .ignore: break
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let continuations: [UnsafeContinuation<Handover<Input>?, any Error>] = lock.withLock {
            guard !ended else { return [] }
            ended = true
            subscription = nil
            if case .failure(let error) = completion, waiting.isEmpty { pendingFailure = error }
            defer { waiting = [] }
            return waiting
        }
        for (index, continuation) in continuations.enumerated() {
            if index == 0, case .failure(let error) = completion {
                continuation.resume(throwing: error)
            } else {
                continuation.resume(returning: nil)
            }
        }
    }

    /// Ends the iteration: cancels the subscription and ends every wait with `nil`.
    @inlinable
    func cancel() {
        let (subscription, continuations): ((any Subscription)?, [UnsafeContinuation<Handover<Input>?, any Error>]) = lock.withLock {
            ended = true
            defer {
                self.subscription = nil
                waiting = []
            }
            return (self.subscription, waiting)
        }
        subscription?.cancel()
        continuations.forEach { $0.resume(returning: nil) }
    }

    @usableFromInline
    enum ValueStep {
        case deliver(UnsafeContinuation<Handover<Input>?, any Error>)
        case endWaits([UnsafeContinuation<Handover<Input>?, any Error>])
        case ignore
    }

    @usableFromInline
    enum NextStep {
        case request(any Subscription)
        case finish(Failure?)
        case wait
    }

    /// The next value, `nil` at the end; throws the upstream's failure once.
    @inlinable
    func next() async throws -> Input? {
        try await nextHandover()?.value
    }

    @inlinable
    func nextHandover() async throws -> Handover<Input>? {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Handover<Input>?, any Error>) in
                let step: NextStep = lock.withLock {
                    if ended {
                        defer { pendingFailure = nil }
                        return .finish(pendingFailure)
                    }
                    waiting.append(continuation)
                    guard let subscription else {
                        demandBeforeSubscription += 1
                        return .wait
                    }
                    return .request(subscription)
                }
                switch consume step {
                case .request(let subscription): subscription.request(.max(1))
                case .finish(let failure):
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
                case .wait: break
                }
            }
        } onCancel: {
            cancel()
        }
    }
}

/// A value handed from the publisher's thread to the task awaiting it.
@usableFromInline
struct Handover<Value>: @unchecked Sendable {
    @usableFromInline let value: Value

    @inlinable
    init(value: Value) {
        self.value = value
    }
}
