extension Publishers {
    /// A publisher that applies an error-throwing closure to all received elements and produces
    /// an accumulated value when the upstream publisher finishes.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    public struct TryReduce<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: any error.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on the first invocation of the closure.
        public let initial: Output

        /// An error-throwing closure that takes the previously-accumulated value and the next
        /// element from the upstream to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a publisher that applies an error-throwing closure to all received elements and
        /// produces an accumulated value when the upstream publisher finishes.
        @inlinable
        public init(upstream: Upstream, initial: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(accumulated: initial, next: nextPartialResult), downstream: subscriber,
                name: "TryReduce", initial: initial))
        }
    }
}

extension Publishers.TryReduce {
    /// The accumulation step of `TryReduce`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline var accumulated: Output
        @usableFromInline let next: (Output, Upstream.Output) throws -> Output

        @inlinable
        init(accumulated: Output, next: @escaping (Output, Upstream.Output) throws -> Output) {
            self.accumulated = accumulated
            self.next = next
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Output, any Error> {
            do {
                accumulated = try next(accumulated, input)
                return .continue
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func result() -> Output? { accumulated }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> any Error { failure }
    }
}

extension Publisher {
    /// Applies an error-throwing closure that collects each element of a stream and publishes a
    /// final result upon completion.
    ///
    /// If the closure throws an error, the publisher cancels the upstream and fails with it.
    ///
    /// - Parameters:
    ///   - initialResult: The value that the closure receives the first time it's called.
    ///   - nextPartialResult: An error-throwing closure that takes the previously-accumulated
    ///     value and the next element from the upstream publisher to produce a new value.
    /// - Returns: A publisher that applies the closure to all received elements and produces an
    ///   accumulated value when the upstream publisher finishes.
    @inlinable
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T)
        -> Publishers.TryReduce<Self, T> {
        Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Reduces the whole sequence at once with an error-throwing closure.
    @inlinable
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) throws -> T)
        -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
    }
}

extension Just {
    /// Reduces the one output at once with an error-throwing closure.
    @inlinable
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }
}

extension Result.Publisher {
    /// Reduces the output at once with an error-throwing closure, or keeps the failure.
    @inlinable
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: (T, Success) throws -> T)
        -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(
            result.mapError { $0 as any Error }.flatMap { value in
                Result<T, any Error>(catching: { try nextPartialResult(initialResult, value) })
            })
    }
}
