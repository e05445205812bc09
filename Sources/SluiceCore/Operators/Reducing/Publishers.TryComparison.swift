extension Publishers {
    /// A publisher that republishes items from another publisher only if each new item is in
    /// increasing order from the previously-published item, and fails if the ordering logic
    /// throws an error.
    ///
    /// `tryMax(by:)` creates one with the given ordering, `tryMin(by:)` with the reversed one.
    public struct TryComparison<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: any error.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns true if they are in increasing order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates a publisher that republishes the greatest element according to the
        /// error-throwing `areInIncreasingOrder`.
        @inlinable
        public init(upstream: Upstream,
                    areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(areInIncreasingOrder: areInIncreasingOrder), downstream: subscriber,
                name: "TryComparison"))
        }
    }
}

extension Publishers.TryComparison {
    /// The step of `TryComparison`: keeps the first greatest element, or fails.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline var best: Upstream.Output?
        @usableFromInline let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        @inlinable
        init(areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, any Error> {
            guard let current = best else {
                best = input
                return .continue
            }
            do {
                if try areInIncreasingOrder(current, input) { best = input }
                return .continue
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func result() -> Upstream.Output? { best }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> any Error { failure }
    }
}

extension Publisher {
    /// Publishes the minimum value received from the upstream publisher, using the provided
    /// error-throwing closure to order the items.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// - Parameter areInIncreasingOrder: A throwing closure that receives two elements and returns
    ///   `true` if they're in increasing order.
    /// - Returns: A publisher that publishes the minimum value received from the upstream
    ///   publisher, after the upstream publisher finishes.
    @inlinable
    public func tryMin(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool)
        -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self) { try areInIncreasingOrder($1, $0) }
    }

    /// Publishes the maximum value received from the upstream publisher, using the provided
    /// error-throwing closure to order the items.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// - Parameter areInIncreasingOrder: A throwing closure that receives two elements and returns
    ///   `true` if they're in increasing order.
    /// - Returns: A publisher that publishes the maximum value received from the upstream
    ///   publisher, after the upstream publisher finishes.
    @inlinable
    public func tryMax(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool)
        -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}

// MARK: Fused overloads

extension Result.Publisher {
    /// The minimum of one output is the output itself (or the failure). As Apple's, on success the
    /// closure is called once, with the output twice; if it throws, the result fails with the error.
    @inlinable
    public func tryMin(by areInIncreasingOrder: (Success, Success) throws -> Bool)
        -> Result<Success, any Error>.Publisher {
        Result<Success, any Error>.Publisher(
            result.mapError { $0 as any Error }.flatMap { output in
                Result<Success, any Error> { _ = try areInIncreasingOrder(output, output); return output }
            })
    }

    /// The maximum of one output is the output itself (or the failure). As Apple's, on success the
    /// closure is called once, with the output twice; if it throws, the result fails with the error.
    @inlinable
    public func tryMax(by areInIncreasingOrder: (Success, Success) throws -> Bool)
        -> Result<Success, any Error>.Publisher {
        Result<Success, any Error>.Publisher(
            result.mapError { $0 as any Error }.flatMap { output in
                Result<Success, any Error> { _ = try areInIncreasingOrder(output, output); return output }
            })
    }
}
