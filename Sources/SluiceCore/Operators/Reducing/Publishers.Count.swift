extension Publishers {
    /// A publisher that publishes the number of elements received from the upstream publisher.
    ///
    /// The count is published when the upstream finishes; a failure passes through instead.
    public struct Count<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Int

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that publishes the number of elements received from the upstream
        /// publisher.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(reducer: Step(), downstream: subscriber, name: "Count"))
        }
    }
}

extension Publishers.Count: Equatable where Upstream: Equatable {}

extension Publishers.Count {
    /// The counting step of `Count`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline var count = 0

        @inlinable
        init() {}

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Int, Upstream.Failure> {
            count += 1
            return .continue
        }

        @inlinable
        func result() -> Int? { count }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Publishes the number of elements received from the upstream publisher.
    ///
    /// - Returns: A publisher that consumes all elements until the upstream publisher finishes,
    ///   then emits a single value with the total number of elements received.
    @inlinable
    public func count() -> Publishers.Count<Self> {
        Publishers.Count(upstream: self)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence where Elements: Collection {
    /// Counts the collection's elements at once.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(.success(sequence.count))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// Counts the collection's elements at once.
    @inlinable
    public func count() -> Just<Int> {
        Just(sequence.count)
    }
}

extension Just {
    /// Counts the one output at once: always `1`.
    @inlinable
    public func count() -> Just<Int> {
        Just<Int>(1)
    }
}

extension Optional.Publisher {
    /// Counts the output at once: `1` if there is an output; publishes nothing otherwise.
    @inlinable
    public func count() -> Optional<Int>.Publisher {
        Optional<Int>.Publisher(output.map { _ in 1 })
    }
}

extension Result.Publisher {
    /// Counts the output at once: `1`, or keeps the failure.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(result.map { _ in 1 })
    }
}
