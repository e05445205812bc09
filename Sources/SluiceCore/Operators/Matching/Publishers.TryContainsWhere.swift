extension Publishers {
    /// A publisher that emits a Boolean value upon receiving an element that satisfies the
    /// throwing predicate closure.
    ///
    /// On a match it publishes `true`, cancels the upstream and finishes; if the predicate
    /// throws, it cancels the upstream and fails with the error.
    public struct TryContainsWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Bool

        /// The kind of errors this publisher might publish: any error.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether this publisher should emit a
        /// `true` element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that emits a Boolean value upon receiving an element that
        /// satisfies the throwing predicate closure.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "TryContainsWhere"))
        }
    }
}

extension Publishers.TryContainsWhere {
    /// The step of `TryContainsWhere`: decides `true` on the first match, or fails.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ReducerStep<Bool, any Error> {
            do {
                return try predicate(input) ? .finish(true) : .continue
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func result() -> Bool? { false }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> any Error { failure }
    }
}

extension Publisher {
    /// Publishes a Boolean value upon receiving an element that satisfies the throwing predicate
    /// closure.
    ///
    /// This operator consumes elements produced from the upstream publisher until the upstream
    /// publisher produces a matching element. If the closure throws an error, the publisher
    /// fails with that error.
    ///
    /// - Parameter predicate: A closure that takes an element as its parameter and returns a
    ///   Boolean value indicating whether the element satisfies the closure's comparison logic.
    /// - Returns: A publisher that emits the Boolean value `true` when the upstream publisher
    ///   emits a matching value.
    @inlinable
    public func tryContains(where predicate: @escaping (Output) throws -> Bool)
        -> Publishers.TryContainsWhere<Self> {
        Publishers.TryContainsWhere(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Searches the sequence at once with an error-throwing predicate.
    @inlinable
    public func tryContains(where predicate: (Elements.Element) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try sequence.contains(where: predicate) })
    }
}

extension Just {
    /// Tests the output at once with an error-throwing predicate.
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try predicate(output) })
    }
}

extension Result.Publisher {
    /// Tests the output at once with an error-throwing predicate, or keeps the failure.
    @inlinable
    public func tryContains(where predicate: (Success) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(
            result.mapError { $0 as any Error }.flatMap { value in
                Result<Bool, any Error>(catching: { try predicate(value) })
            })
    }
}
