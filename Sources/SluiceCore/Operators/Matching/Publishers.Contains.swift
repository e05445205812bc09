extension Publishers {
    /// A publisher that emits a Boolean value when it receives a specific element from its
    /// upstream publisher.
    ///
    /// On a match it publishes `true`, cancels the upstream and finishes; if the upstream
    /// finishes without one, it publishes `false`.
    public struct Contains<Upstream: Publisher>: Publisher where Upstream.Output: Equatable {
        /// The kind of values published by this publisher.
        public typealias Output = Bool

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The element to scan for in the upstream publisher.
        public let output: Upstream.Output

        /// Creates a publisher that emits a Boolean value when it receives a specific element
        /// from its upstream publisher.
        @inlinable
        public init(upstream: Upstream, output: Upstream.Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(output: output), downstream: subscriber, name: "Contains"))
        }
    }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {}

extension Publishers.Contains {
    /// The step of `Contains`: decides `true` on the first equal element.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let output: Upstream.Output

        @inlinable
        init(output: Upstream.Output) {
            self.output = output
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ReducerStep<Bool, Upstream.Failure> {
            input == output ? .finish(true) : .continue
        }

        @inlinable
        func result() -> Bool? { false }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher where Output: Equatable {
    /// Publishes a Boolean value upon receiving an element equal to the argument.
    ///
    /// The contains publisher consumes all received elements until the upstream publisher
    /// produces a matching element. Upon finding the first match, it emits `true` and finishes
    /// normally. If the upstream finishes normally without producing a matching element, this
    /// publisher emits `false` and finishes.
    ///
    /// - Parameter output: An element to match against.
    /// - Returns: A publisher that emits the Boolean value `true` when the upstream publisher
    ///   emits a matching value.
    @inlinable
    public func contains(_ output: Output) -> Publishers.Contains<Self> {
        Publishers.Contains(upstream: self, output: output)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence where Elements.Element: Equatable {
    /// Searches the sequence at once.
    @inlinable
    public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(.success(sequence.contains(output)))
    }
}

extension Just where Output: Equatable {
    /// Compares the output at once.
    @inlinable
    public func contains(_ output: Output) -> Just<Bool> {
        Just<Bool>(self.output == output)
    }
}

extension Optional.Publisher where Wrapped: Equatable {
    /// Compares the output at once; publishes nothing if there's no output.
    @inlinable
    public func contains(_ output: Wrapped) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(self.output.map { $0 == output })
    }
}

extension Result.Publisher where Success: Equatable {
    /// Compares the output at once, or keeps the failure.
    @inlinable
    public func contains(_ output: Success) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map { $0 == output })
    }
}
