extension Publishers {
    /// A publisher that transforms elements from the upstream publisher by providing the current
    /// element to a closure along with the last value returned by the closure.
    ///
    /// `Scan` adds no subscription of its own: demand and completion pass straight through. Each
    /// subscription keeps its own accumulator, starting from ``initialResult``.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, used with the first upstream element.
        public let initialResult: Output

        /// A closure that takes as its arguments the previous value returned by the closure and
        /// the next element emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a publisher that accumulates each upstream element into a running result.
        @inlinable
        public init(upstream: Upstream, initialResult: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber, wrapped so that it receives each running result.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(Inner(downstream: subscriber, initialResult: initialResult,
                                               nextPartialResult: nextPartialResult))
        }
    }
}

extension Publishers.Scan {
    /// The subscriber `Scan` puts upstream: forwards the subscription and the completion, and
    /// publishes the running result for each value.
    ///
    /// The accumulator is touched only from the upstream's `receive(_:)`, which the contract
    /// serialises; so it needs no lock.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let nextPartialResult: (Output, Upstream.Output) -> Output
        @exclusivity(unchecked) @usableFromInline var result: Output

        @inlinable
        init(downstream: Downstream, initialResult: Output,
             nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.downstream = downstream
            self.result = initialResult
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            result = nextPartialResult(result, input)
            return downstream.receive(result)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline var description: String { "Scan" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["downstream": downstream, "result": result])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Transforms elements from the upstream publisher by providing the current element to a
    /// closure along with the last value returned by the closure.
    ///
    /// Each upstream element produces one published result, so demand passes through unchanged.
    ///
    /// - Parameters:
    ///   - initialResult: The previous result, used with the first element.
    ///   - nextPartialResult: A closure that takes the previously returned value and the next
    ///     element, and returns a new value.
    /// - Returns: A publisher that republishes each running result.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Scan<Self, T> {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

// MARK: Fused overloads

extension Just {
    /// Accumulates the one output at once: the result publishes
    /// `nextPartialResult(initialResult, output)`.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(.success(nextPartialResult(initialResult, output)))
    }
}

extension Optional.Publisher {
    /// Accumulates the value, if any, at once: the result publishes
    /// `nextPartialResult(initialResult, value)`, or nothing.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }
}

extension Result.Publisher {
    /// Accumulates the success value at once, or keeps the failure.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }
}

extension Publishers.Sequence {
    /// Computes every partial result at once, returning a publisher of the array of partial
    /// results.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Publishers.Sequence<[T], Failure> {
        var accumulator = initialResult
        var results: [T] = []
        results.reserveCapacity(sequence.underestimatedCount)
        for element in sequence {
            accumulator = nextPartialResult(accumulator, element)
            results.append(accumulator)
        }
        return Publishers.Sequence<[T], Failure>(sequence: results)
    }
}
