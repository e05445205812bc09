extension Publishers {
    /// A publisher that waits until the upstream publisher finishes, then emits the last
    /// element it received.
    public struct Last<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that publishes the last element of the upstream.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(), downstream: subscriber, name: "Last"))
        }
    }
}

extension Publishers.Last {
    /// The step of `Last`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline var latest: Upstream.Output?

        @inlinable
        init() { latest = nil }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, Upstream.Failure> {
            latest = input
            return .continue
        }

        @inlinable
        func result() -> Upstream.Output? { latest }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Publishes the last element of a stream, after the stream finishes.
    ///
    /// - Returns: A publisher that only publishes the last element of a stream.
    @inlinable
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }
}

// MARK: Fused overloads

extension Just {
    /// Publishes the one output at once: it is the last element.
    @inlinable
    public func last() -> Just<Output> { self }
}

extension Result.Publisher {
    /// Publishes the result at once: its output is the last element.
    @inlinable
    public func last() -> Result<Output, Failure>.Publisher { self }
}

extension Optional.Publisher {
    /// Publishes the value, if any, at once: it is the last element.
    @inlinable
    public func last() -> Optional<Wrapped>.Publisher { self }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// Takes the collection's last element at once.
    @inlinable
    public func last() -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.last)
    }
}

extension Publishers.Last: Equatable where Upstream: Equatable {}
