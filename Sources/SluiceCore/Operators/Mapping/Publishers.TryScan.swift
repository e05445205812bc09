extension Publishers {
    /// A publisher that transforms elements from the upstream publisher by providing the current
    /// element to a failable closure along with the last value returned by the closure.
    ///
    /// `TryScan` has a subscription of its own (named "TryScan"): demand passes straight through,
    /// and when ``nextPartialResult`` throws it cancels the upstream and fails with the error.
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: any error, thrown or from upstream.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, used with the first upstream element.
        public let initialResult: Output

        /// An error-throwing closure that takes as its arguments the previous value returned by
        /// the closure and the next element emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a publisher that accumulates each upstream element into a running result with
        /// an error-throwing closure.
        @inlinable
        public init(upstream: Upstream, initialResult: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let step = Step(result: initialResult, nextPartialResult: nextPartialResult)
            upstream.attachSubscriber(ElementProducer(step: step, downstream: subscriber, name: "TryScan"))
        }
    }
}

extension Publishers.TryScan {
    /// Publishes each running result; a thrown error ends the stream.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: a value before the subscription is still accumulated and published.
        @inlinable static var earlyEvents: EarlyEventHandling { .forwardValues }

        /// As in Combine: the downstream, the upstream status and the running result.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            [(label: "downstream", value: downstream), (label: "status", value: upstream), (label: "result", value: result)]
        }

        @usableFromInline var result: Output
        @usableFromInline let nextPartialResult: (Output, Upstream.Output) throws -> Output

        @inlinable
        init(result: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.result = result
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ElementDecision<Output, any Error> {
            do {
                result = try nextPartialResult(result, input)
                return .send(result)
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
    /// Transforms elements from the upstream publisher by providing the current element to an
    /// error-throwing closure along with the last value returned by the closure.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    /// Demand passes through unchanged.
    ///
    /// - Parameters:
    ///   - initialResult: The previous result, used with the first element.
    ///   - nextPartialResult: An error-throwing closure that takes the previously returned value
    ///     and the next element, and returns a new value.
    /// - Returns: A publisher that republishes each running result.
    @inlinable
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T)
        -> Publishers.TryScan<Self, T>
    {
        Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

// MARK: Fused overloads

extension Just {
    /// Accumulates the one output at once with an error-throwing closure: the result publishes the
    /// partial result, or fails with the thrown error.
    @inlinable
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result<T, any Error> { try nextPartialResult(initialResult, output) })
    }
}

extension Result.Publisher {
    /// Accumulates the success value at once with an error-throwing closure: the result publishes
    /// the partial result, or fails with the thrown error (or with the original failure).
    @inlinable
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher {
        switch result {
        case .success(let output):
            return Result<T, any Error>.Publisher(Result<T, any Error> { try nextPartialResult(initialResult, output) })
        case .failure(let error):
            return Result<T, any Error>.Publisher(.failure(error))
        }
    }
}
