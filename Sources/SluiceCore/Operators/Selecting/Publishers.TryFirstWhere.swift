extension Publishers {
    /// A publisher that only publishes the first element of a stream to satisfy a
    /// throwing predicate closure.
    ///
    /// On the first match it cancels the upstream, publishes the element and finishes; if the
    /// predicate throws, it cancels the upstream and fails with the error.
    public struct TryFirstWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: any error the upstream or the predicate produces.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes the first element that satisfies the predicate.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "TryFirstWhere"))
        }
    }
}

extension Publishers.TryFirstWhere {
    /// The step of `TryFirstWhere`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, any Error> {
            do {
                return try predicate(input) ? .finish(input) : .continue
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func result() -> Upstream.Output? { nil }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> any Error { failure }
    }
}

extension Publisher {
    /// Publishes the first element of a stream to satisfy a throwing predicate closure, then
    /// finishes normally.
    ///
    /// If the predicate closure throws an error, the publisher fails with that error.
    ///
    /// - Parameter predicate: A closure that takes an element as a parameter and returns a
    ///   Boolean value that indicates whether to publish the element.
    /// - Returns: A publisher that only publishes the first element of a stream that satisfies
    ///   the predicate.
    @inlinable
    public func tryFirst(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryFirstWhere<Self> {
        Publishers.TryFirstWhere(upstream: self, predicate: predicate)
    }
}
