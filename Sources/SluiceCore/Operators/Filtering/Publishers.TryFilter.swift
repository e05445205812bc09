extension Publishers {
    /// A publisher that republishes all elements that match a provided error-throwing closure.
    ///
    /// `TryFilter` has a subscription of its own (named "TryFilter"). A dropped value is replaced
    /// by asking the upstream for one more, so downstream demand counts only the values it
    /// receives. When ``isIncluded`` throws, it cancels the upstream and fails with the error.
    public struct TryFilter<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: any error, thrown or from upstream.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure that indicates whether to republish an element.
        public let isIncluded: (Upstream.Output) throws -> Bool

        /// Creates a publisher that republishes all elements that match a provided error-throwing
        /// closure.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = ElementProducer(step: Step(isIncluded: isIncluded), downstream: subscriber, name: "TryFilter")
            upstream.attachSubscriber(inner)
        }
    }
}

extension Publishers.TryFilter {
    /// Keeps the matching values; a thrown error ends the stream.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: an event or a request before the subscription traps.
        @inlinable static var earlyEvents: EarlyEventHandling { .trap }

        @usableFromInline let isIncluded: (Upstream.Output) throws -> Bool

        @inlinable
        init(isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.isIncluded = isIncluded
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, any Error> {
            do {
                return try isIncluded(input) ? .send(input) : .drop
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>)
            -> ElementEnding<Upstream.Output, any Error>
        {
            .complete(completion.mapError { $0 })
        }
    }
}

extension Publisher {
    /// Republishes all elements that match a provided error-throwing closure.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    /// A dropped element is replaced by requesting one more from upstream.
    ///
    /// - Parameter isIncluded: A closure that takes one element and returns whether to republish
    ///   it; it may throw to end the stream with a failure.
    /// - Returns: A publisher that republishes the elements that satisfy the closure.
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Self> {
        Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers.Filter {
    /// Fuses a `tryFilter` after a `filter` into one `TryFilter` that requires both predicates.
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}

extension Publishers.TryFilter {
    /// Fuses a `filter` after a `tryFilter` into one `TryFilter` that requires both predicates.
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }

    /// Fuses two consecutive `tryFilter`s into one `TryFilter` that requires both predicates.
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}
