extension Publishers {
    /// A publisher that applies a closure to all received elements and produces an accumulated
    /// value when the upstream publisher finishes.
    ///
    /// It requests an unlimited number of elements from the upstream as soon as it is subscribed,
    /// and publishes the one accumulated value when the subscriber has demand.
    public struct Reduce<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on the first invocation of the closure.
        public let initial: Output

        /// A closure that takes the previously-accumulated value and the next element from the
        /// upstream publisher to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a publisher that applies a closure to all received elements and produces an
        /// accumulated value when the upstream publisher finishes.
        @inlinable
        public init(upstream: Upstream, initial: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(accumulated: initial, next: nextPartialResult), downstream: subscriber,
                name: "Reduce", initial: initial))
        }
    }
}

extension Publishers.Reduce {
    /// The accumulation step of `Reduce`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline var accumulated: Output
        @usableFromInline let next: (Output, Upstream.Output) -> Output

        @inlinable
        init(accumulated: Output, next: @escaping (Output, Upstream.Output) -> Output) {
            self.accumulated = accumulated
            self.next = next
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Output, Upstream.Failure> {
            accumulated = next(accumulated, input)
            return .continue
        }

        @inlinable
        func result() -> Output? { accumulated }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Applies a closure that collects each element of a stream and publishes a final result
    /// upon completion.
    ///
    /// - Parameters:
    ///   - initialResult: The value that the closure receives the first time it's called.
    ///   - nextPartialResult: A closure that produces a new value by taking the
    ///     previously-accumulated value and the next element it receives from the upstream.
    /// - Returns: A publisher that applies the closure to all received elements and produces an
    ///   accumulated value when the upstream publisher finishes. If the upstream fails, the
    ///   failure passes through and no value is published.
    @inlinable
    public func reduce<T>(_ initialResult: T,
                          _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Reduce<Self, T> {
        Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Reduces the whole sequence at once.
    @inlinable
    public func reduce<T>(_ initialResult: T,
                          _ nextPartialResult: @escaping (T, Elements.Element) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(.success(sequence.reduce(initialResult, nextPartialResult)))
    }
}

extension Just {
    /// Reduces the one output at once.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result<T, Never>.Publisher(nextPartialResult(initialResult, output))
    }
}

extension Optional.Publisher {
    /// Reduces the output at once; publishes nothing if there's no output.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Wrapped) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }
}

extension Result.Publisher {
    /// Reduces the output at once, or keeps the failure.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Success) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }
}
