extension Publishers {
    /// A publisher that emits a Boolean value upon receiving an element that satisfies the
    /// predicate closure.
    ///
    /// On a match it publishes `true`, cancels the upstream and finishes; if the upstream
    /// finishes without one, it publishes `false`.
    public struct ContainsWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Bool

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether the publisher should consider an element as a
        /// match.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that emits a Boolean value upon receiving an element that
        /// satisfies the predicate closure.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "ContainsWhere"))
        }
    }
}

extension Publishers.ContainsWhere {
    /// The step of `ContainsWhere`: decides `true` on the first matching element.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ReducerStep<Bool, Upstream.Failure> {
            predicate(input) ? .finish(true) : .continue
        }

        @inlinable
        func result() -> Bool? { false }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Publishes a Boolean value upon receiving an element that satisfies the predicate closure.
    ///
    /// This operator consumes elements produced from the upstream publisher until the upstream
    /// publisher produces a matching element; then it emits `true`, cancels the upstream and
    /// finishes. If the upstream finishes without a match, it emits `false`.
    ///
    /// - Parameter predicate: A closure that takes an element as its parameter and returns a
    ///   Boolean value that indicates whether the element satisfies the closure's comparison
    ///   logic.
    /// - Returns: A publisher that emits the Boolean value `true` when the upstream publisher
    ///   emits a matching value.
    @inlinable
    public func contains(where predicate: @escaping (Output) -> Bool) -> Publishers.ContainsWhere<Self> {
        Publishers.ContainsWhere(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Searches the sequence at once.
    @inlinable
    public func contains(where predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(.success(sequence.contains(where: predicate)))
    }
}

extension Just {
    /// Tests the output at once.
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }
}

extension Optional.Publisher {
    /// Tests the output at once; publishes nothing if there's no output.
    @inlinable
    public func contains(where predicate: (Wrapped) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }
}

extension Result.Publisher {
    /// Tests the output at once, or keeps the failure.
    @inlinable
    public func contains(where predicate: (Success) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }
}
