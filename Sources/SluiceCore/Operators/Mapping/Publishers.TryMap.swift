extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided
    /// error-throwing closure.
    ///
    /// `TryMap` has a subscription of its own (named "TryMap"): demand passes straight through,
    /// and when ``transform`` throws it cancels the upstream and fails with the thrown error. An
    /// upstream failure is republished as `any Error`.
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: any error, thrown or from upstream.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) throws -> Output

        /// Creates a publisher that transforms all elements from the upstream publisher with a
        /// provided error-throwing closure.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(transform: transform), downstream: subscriber,
                                                         name: "TryMap"))
        }
    }
}

extension Publishers.TryMap {
    /// Transforms each value; a thrown error ends the stream.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: a value before the subscription is still transformed and published.
        @inlinable static var earlyEvents: EarlyEventHandling { .forwardValues }

        /// As in Combine, the subscription's mirror has no children.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            []
        }

        @usableFromInline let transform: (Upstream.Output) throws -> Output

        @inlinable
        init(transform: @escaping (Upstream.Output) throws -> Output) {
            self.transform = transform
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Output, any Error> {
            do {
                return .send(try transform(input))
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
    /// Transforms all elements from the upstream publisher with a provided error-throwing closure.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    /// Demand passes through unchanged.
    ///
    /// - Parameter transform: A closure that takes one element and returns a new element; it may
    ///   throw to end the stream with a failure.
    /// - Returns: A publisher that republishes the transformed elements.
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
        Publishers.TryMap(upstream: self, transform: transform)
    }
}

extension Publishers.Map {
    /// Fuses a `tryMap` after a `map` into one `TryMap` whose transform applies both.
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
    }
}

extension Publishers.TryMap {
    /// Fuses a `map` after a `tryMap` into one `TryMap` whose transform applies both.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
    }

    /// Fuses two consecutive `tryMap`s into one `TryMap` whose transform applies both.
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
    }
}

// MARK: Fused overloads

extension Just {
    /// Transforms the output at once with an error-throwing closure: the result publishes the new
    /// value, or fails with the thrown error.
    @inlinable
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result<T, any Error> { try transform(output) })
    }
}

extension Result.Publisher {
    /// Transforms the success value at once with an error-throwing closure: the result publishes
    /// the new value, or fails with the thrown error (or with the original failure).
    @inlinable
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        switch result {
        case .success(let output):
            return Result<T, any Error>.Publisher(Result<T, any Error> { try transform(output) })
        case .failure(let error):
            return Result<T, any Error>.Publisher(.failure(error))
        }
    }
}
