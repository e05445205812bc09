extension Publishers {
    /// A publisher that waits until the upstream publisher finishes, then emits the last
    /// element that satisfied a predicate closure.
    public struct LastWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that publishes the last element that satisfies the predicate.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "LastWhere"))
        }
    }
}

extension Publishers.LastWhere {
    /// The step of `LastWhere`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let predicate: (Upstream.Output) -> Bool
        @usableFromInline var latest: Upstream.Output?

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
            self.latest = nil
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, Upstream.Failure> {
            if predicate(input) { latest = input }
            return .continue
        }

        @inlinable
        func result() -> Upstream.Output? { latest }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Publishes the last element of a stream that satisfies a predicate closure, after the
    /// stream finishes.
    ///
    /// - Parameter predicate: A closure that takes an element as its parameter and returns a
    ///   Boolean value that indicates whether to publish the element.
    /// - Returns: A publisher that only publishes the last element satisfying the given
    ///   predicate.
    @inlinable
    public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
        Publishers.LastWhere(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Just {
    /// Tests the output at once: the result publishes it if it matches, and is empty otherwise.
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }
}

extension Optional.Publisher {
    /// Tests the value, if any, at once: the result publishes it if it matches, and is empty
    /// otherwise.
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Wrapped>.Publisher {
        Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// Finds the last matching element at once, searching from the end.
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.last(where: predicate))
    }
}
