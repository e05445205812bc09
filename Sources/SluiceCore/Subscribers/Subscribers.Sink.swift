extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// A sink calls ``receiveValue`` for every value and ``receiveCompletion`` once at the end. It
    /// releases its subscription on completion or ``cancel()``; events arriving after either are
    /// ignored. Values are delivered without taking a lock, on whatever thread the publisher uses.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        /// The closure to execute on receipt of a value.
        public let receiveValue: (Input) -> Void

        /// The closure to execute on completion.
        public let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

        @usableFromInline
        let lock = Lock()

        @usableFromInline
        var upstream = UpstreamStatus()

        /// Initializes a sink with the provided closures.
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }

        /// Keeps the first subscription and requests `.unlimited` from it; cancels any later one.
        public func receive(subscription: any Subscription) {
            if lock.withLock({ upstream.attach(subscription) }) {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Calls ``receiveValue`` and returns `.none` (the demand is already unlimited).
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            receiveValue(value)
            return .none
        }

        /// Releases the subscription and calls ``receiveCompletion``, unless already cancelled or
        /// completed.
        public func receive(completion: Subscribers.Completion<Failure>) {
            if lock.withLock({ upstream.finish() }) {
                receiveCompletion(completion)
            }
        }

        /// Cancels the subscription and releases it. Idempotent and thread-safe.
        public func cancel() {
            lock.withLock { upstream.detach() }?.cancel()
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
