extension Publishers {
    /// A publisher that waits until the upstream publisher finishes, then emits the last
    /// element that satisfied an error-throwing predicate closure.
    ///
    /// If the predicate throws, it cancels the upstream and fails with the error.
    public struct TryLastWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: any error the upstream or the predicate produces.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes the last element that satisfies the predicate.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(predicate: predicate), downstream: subscriber, name: "TryLastWhere"))
        }
    }
}

extension Publishers.TryLastWhere {
    /// The step of `TryLastWhere`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline let predicate: (Upstream.Output) throws -> Bool
        @usableFromInline var latest: Upstream.Output?

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
            self.latest = nil
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, any Error> {
            do {
                if try predicate(input) { latest = input }
                return .continue
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func result() -> Upstream.Output? { latest }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> any Error { failure }
    }
}

extension Publisher {
    /// Publishes the last element of a stream that satisfies an error-throwing predicate
    /// closure, after the stream finishes.
    ///
    /// If the predicate closure throws an error, the publisher fails with the error.
    ///
    /// - Parameter predicate: A closure that takes an element as its parameter and returns a
    ///   Boolean value that indicates whether to publish the element.
    /// - Returns: A publisher that only publishes the last element satisfying the given
    ///   predicate.
    @inlinable
    public func tryLast(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryLastWhere<Self> {
        Publishers.TryLastWhere(upstream: self, predicate: predicate)
    }
}
