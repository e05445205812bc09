extension Publishers {
    /// A publisher that republishes all non-`nil` results of calling an error-throwing closure
    /// with each received element.
    ///
    /// `TryCompactMap` has a subscription of its own (named "TryCompactMap"). A `nil` result is
    /// replaced by asking the upstream for one more value. When ``transform`` throws, it cancels
    /// the upstream and fails with the error.
    public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: any error, thrown or from upstream.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure that receives values from the upstream publisher and returns
        /// optional values.
        public let transform: (Upstream.Output) throws -> Output?

        /// Creates a publisher that republishes all non-`nil` results of calling an error-throwing
        /// closure with each received element.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(transform: transform), downstream: subscriber,
                                                         name: "TryCompactMap"))
        }
    }
}

extension Publishers.TryCompactMap {
    /// Publishes the non-`nil` results; a thrown error ends the stream.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: an event or a request before the subscription traps.
        @inlinable static var earlyEvents: EarlyEventHandling { .trap }

        @usableFromInline let transform: (Upstream.Output) throws -> Output?

        @inlinable
        init(transform: @escaping (Upstream.Output) throws -> Output?) {
            self.transform = transform
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Output, any Error> {
            do {
                if let output = try transform(input) { return .send(output) }
                return .drop
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) -> ElementEnding<Output, any Error> {
            .complete(completion.mapError { $0 })
        }
    }
}

extension Publisher {
    /// Calls an error-throwing closure with each received element and publishes any returned
    /// optional that has a value.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    /// A `nil` result is replaced by requesting one more element from upstream.
    ///
    /// - Parameter transform: An error-throwing closure that receives a value and returns an
    ///   optional value.
    /// - Returns: A publisher that republishes the non-`nil` results.
    @inlinable
    public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
        Publishers.TryCompactMap(upstream: self, transform: transform)
    }
}

extension Publishers.TryCompactMap {
    /// Fuses a `compactMap` (with a throwing closure) after a `tryCompactMap` into one
    /// `TryCompactMap`.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryCompactMap(upstream: upstream) { value in
            try first(value).flatMap(transform)
        }
    }
}
