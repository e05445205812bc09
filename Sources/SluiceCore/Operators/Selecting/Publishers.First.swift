extension Publishers {
    /// A publisher that publishes the first element of a stream, then finishes.
    ///
    /// On the first element it cancels the upstream, publishes the element and finishes. If the
    /// upstream finishes without producing an element, it finishes without publishing.
    public struct First<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that publishes the first element of the upstream.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(), downstream: subscriber, name: "First"))
        }
    }
}

extension Publishers.First {
    /// The step of `First`.
    @usableFromInline
    struct Step: Reducer {

        @inlinable
        init() {}

        @inlinable
        func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, Upstream.Failure> {
            .finish(input)
        }

        @inlinable
        func result() -> Upstream.Output? { nil }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Publishes the first element of a stream, then finishes.
    ///
    /// If you need to test the elements, use ``Publisher/first(where:)``. The upstream is
    /// cancelled once the first element arrives.
    ///
    /// - Returns: A publisher that only publishes the first element of a stream.
    @inlinable
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self)
    }
}

// MARK: Fused overloads

extension Just {
    /// Publishes the one output at once: it is the first element.
    @inlinable
    public func first() -> Just<Output> { self }
}

extension Result.Publisher {
    /// Publishes the result at once: its output is the first element.
    @inlinable
    public func first() -> Result<Output, Failure>.Publisher { self }
}

extension Optional.Publisher {
    /// Publishes the value, if any, at once: it is the first element.
    @inlinable
    public func first() -> Optional<Wrapped>.Publisher { self }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// Takes the collection's first element at once.
    @inlinable
    public func first() -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.first)
    }
}

extension Publishers.First: Equatable where Upstream: Equatable {}
