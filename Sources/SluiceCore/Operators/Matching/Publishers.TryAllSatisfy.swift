extension Publishers {
    /// A publisher that publishes a single Boolean value that indicates whether all received
    /// elements pass a given error-throwing predicate.
    ///
    /// On the first element that fails it publishes `false`, cancels the upstream and finishes;
    /// if the predicate throws, it cancels the upstream and fails with the error.
    public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Bool

        /// The kind of errors this publisher might publish: any error.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        ///
        /// Return `true` to continue, or `false` to cancel the upstream and complete. The closure
        /// may throw, in which case the publisher cancels the upstream publisher and fails with
        /// the thrown error.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes whether all received elements pass the
        /// error-throwing `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "TryAllSatisfy"))
        }
    }
}

extension Publishers.TryAllSatisfy {
    /// The step of `TryAllSatisfy`: decides `false` on the first element that fails, or fails.
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
                return try predicate(input) ? .continue : .finish(false)
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func result() -> Bool? { true }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> any Error { failure }
    }
}

extension Publisher {
    /// Publishes a single Boolean value that indicates whether all received elements pass a
    /// given error-throwing predicate.
    ///
    /// If the predicate returns `false`, the publisher produces a `false` value and finishes. If
    /// the upstream publisher finishes normally, this publisher produces a `true` value and
    /// finishes. If the predicate throws an error, the publisher fails with that error.
    ///
    /// - Parameter predicate: A closure that evaluates each received element. Return `true` to
    ///   continue, or `false` to cancel the upstream and complete.
    /// - Returns: A publisher that publishes a Boolean value that indicates whether all received
    ///   elements pass a given predicate.
    @inlinable
    public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool) -> Publishers.TryAllSatisfy<Self> {
        Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Tests the whole sequence at once with an error-throwing predicate.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Elements.Element) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try sequence.allSatisfy(predicate) })
    }
}

extension Just {
    /// Tests the output at once with an error-throwing predicate.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try predicate(output) })
    }
}

extension Result.Publisher {
    /// Tests the output at once with an error-throwing predicate, or keeps the failure.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Success) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(
            result.mapError { $0 as any Error }.flatMap { value in
                Result<Bool, any Error>(catching: { try predicate(value) })
            })
    }
}
