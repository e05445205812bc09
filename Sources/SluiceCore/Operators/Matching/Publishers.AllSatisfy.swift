extension Publishers {
    /// A publisher that publishes a single Boolean value that indicates whether all received
    /// elements pass a given predicate.
    ///
    /// On the first element that fails the predicate it publishes `false`, cancels the upstream
    /// and finishes; if the upstream finishes first, it publishes `true`.
    public struct AllSatisfy<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Bool

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        ///
        /// Return `true` to continue, or `false` to cancel the upstream and finish.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that publishes whether all received elements pass `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "AllSatisfy"))
        }
    }
}

extension Publishers.AllSatisfy {
    /// The step of `AllSatisfy`: decides `false` on the first element that fails.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ReducerStep<Bool, Upstream.Failure> {
            predicate(input) ? .continue : .finish(false)
        }

        @inlinable
        func result() -> Bool? { true }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher {
    /// Publishes a single Boolean value that indicates whether all received elements pass a
    /// given predicate.
    ///
    /// When this publisher receives an element, it runs the predicate against the element. If
    /// the predicate returns `false`, the publisher produces a `false` value and finishes. If the
    /// upstream publisher finishes normally, this publisher produces a `true` value and finishes.
    ///
    /// - Parameter predicate: A closure that evaluates each received element. Return `true` to
    ///   continue, or `false` to cancel the upstream and complete.
    /// - Returns: A publisher that publishes a Boolean value that indicates whether all received
    ///   elements pass a given predicate.
    @inlinable
    public func allSatisfy(_ predicate: @escaping (Output) -> Bool) -> Publishers.AllSatisfy<Self> {
        Publishers.AllSatisfy(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Tests the whole sequence at once.
    @inlinable
    public func allSatisfy(_ predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(.success(sequence.allSatisfy(predicate)))
    }
}

extension Just {
    /// Tests the output at once.
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }
}

extension Optional.Publisher {
    /// Tests the output at once; publishes nothing if there's no output.
    @inlinable
    public func allSatisfy(_ predicate: (Wrapped) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }
}

extension Result.Publisher {
    /// Tests the output at once, or keeps the failure.
    @inlinable
    public func allSatisfy(_ predicate: (Success) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }
}
