import Synchronization

extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// A sink calls ``receiveValue`` for every value and ``receiveCompletion`` once at the end. It
    /// releases its subscription on completion or ``cancel()``; events arriving after either are
    /// ignored. On completion it also releases its closures (replacing them with no-ops), so a
    /// closure that captures the owner of the sink's `AnyCancellable` does not keep it alive once
    /// the publisher has finished. Values are delivered without taking a lock, on whatever thread
    /// the publisher uses.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        /// The closure to execute on receipt of a value (a no-op once the sink has completed).
        public var receiveValue: (Input) -> Void { lock.withLock { valueHandler } }

        /// The closure to execute on completion (a no-op once the sink has completed).
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void { lock.withLock { completionHandler } }

        @usableFromInline
        let lock = Lock()

        @exclusivity(unchecked) @usableFromInline
        var upstream = UpstreamStatus()

        /// Written (under `lock`) only when the completion arrives; `receive(_:)` reads it without
        /// the lock, which is safe because a publisher never sends a value concurrently with, or
        /// after, its completion (the contract serialises them).
        @exclusivity(unchecked) @usableFromInline
        var valueHandler: (Input) -> Void

        @exclusivity(unchecked) @usableFromInline
        var completionHandler: (Subscribers.Completion<Failure>) -> Void

        /// Set once cancelled or completed; lets `receive(_:)` drop late values without the lock.
        @usableFromInline
        let isTerminated = Atomic<Bool>(false)

        /// Initializes a sink with the provided closures.
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            completionHandler = receiveCompletion
            valueHandler = receiveValue
        }

        /// Keeps the first subscription and requests `.unlimited` from it; cancels any later one.
        @inlinable
        public func receive(subscription: any Subscription) {
            if lock.withLock({ upstream.attach(subscription) }) {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Calls ``receiveValue`` (unless cancelled or completed) and returns `.none`: the demand
        /// is already unlimited.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            if !isTerminated.load(ordering: .acquiring) {
                valueHandler(value)
            }
            return .none
        }

        /// Releases the subscription and the closures, then calls the completion closure, unless
        /// already cancelled or completed.
        @inlinable
        public func receive(completion: Subscribers.Completion<Failure>) {
            let handlers = lock.withLock { () -> ((Input) -> Void, (Subscribers.Completion<Failure>) -> Void)? in
                guard upstream.finish() else { return nil }
                isTerminated.store(true, ordering: .releasing)
                defer {
                    valueHandler = { _ in }
                    completionHandler = { _ in }
                }
                return (valueHandler, completionHandler)
            }
            handlers?.1(completion)  // the closures are released when `handlers` goes, outside the lock
        }

        /// Cancels the subscription and releases it; later events are ignored. Idempotent and
        /// thread-safe. As Apple's, a cancel before any subscription has arrived does nothing:
        /// values still reach the closure, and a subscription arriving later is accepted.
        @inlinable
        public func cancel() {
            lock.withLock { () -> (any Subscription)? in
                guard upstream.isSubscribed else { return nil }
                isTerminated.store(true, ordering: .releasing)
                return upstream.detach()
            }?.cancel()
        }

        /// `"Sink"`.
        public var description: String { "Sink" }

        /// A mirror with no children.
        public var customMirror: Mirror { Mirror(self, children: [:]) }

        /// `"Sink"`.
        public var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// The sink requests `.unlimited` values. - Returns: A cancellable that cancels the
    /// subscription when cancelled or deinitialized; keep it for as long as values should flow.
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    ///
    /// The sink requests `.unlimited` values. - Returns: A cancellable that cancels the
    /// subscription when cancelled or deinitialized.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Subscribers.Sink: @unchecked Sendable {}
#endif
