extension Publishers {
    /// A publisher that only publishes the first element of a stream to satisfy a predicate
    /// closure.
    ///
    /// On the first match it cancels the upstream, publishes the element and finishes.
    public struct FirstWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that publishes the first element that satisfies the predicate.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        ///
        /// The subscription describes itself as "TryFirst", as Apple's does.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "TryFirst"))
        }
    }
}

extension Publishers.FirstWhere {
    /// The step of `FirstWhere`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, Upstream.Failure> {
            predicate(input) ? .finish(input) : .continue
        }

        @inlinable
        func result() -> Upstream.Output? { nil }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Publishes the first element of a stream to satisfy a predicate closure, then finishes
    /// normally.
    ///
    /// - Parameter predicate: A closure that takes an element as a parameter and returns a
    ///   Boolean value that indicates whether to publish the element.
    /// - Returns: A publisher that only publishes the first element of a stream that satisfies
    ///   the predicate.
    @inlinable
    public func first(where predicate: @escaping (Output) -> Bool) -> Publishers.FirstWhere<Self> {
        Publishers.FirstWhere(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Just {
    /// Tests the output at once: the result publishes it if it matches, and is empty otherwise.
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }
}

extension Optional.Publisher {
    /// Tests the value, if any, at once: the result publishes it if it matches, and is empty
    /// otherwise.
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Wrapped>.Publisher {
        Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }
}

extension Publishers.Sequence where Failure == Never {
    /// Finds the first matching element at once (the predicate runs until the first match).
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.first(where: predicate))
    }
}
