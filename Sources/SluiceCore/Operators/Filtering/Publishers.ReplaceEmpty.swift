extension Publishers {
    /// A publisher that replaces an empty stream with a provided element.
    ///
    /// `ReplaceEmpty` has a subscription of its own (named "ReplaceEmpty"): values, the
    /// subscriber's requests and a failure pass through; when the upstream finishes without having
    /// published anything, it publishes ``output`` — as soon as the downstream has demand for it —
    /// and then finishes.
    ///
    /// As in Combine, once the subscriber has its subscription the operator also asks the upstream
    /// for `.unlimited`, and republishes every value it gets: the subscriber may receive more
    /// values than it requested (an exception to contract rule 2).
    public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The element to deliver when the upstream publisher finishes without delivering any
        /// elements.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that replaces an empty stream with a provided element.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(output: output), downstream: subscriber,
                                                         name: "ReplaceEmpty"))
        }
    }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceEmpty {
    /// Passes everything through, remembering whether anything came; an empty finish becomes
    /// the replacement value and `.finished`.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: the upstream is asked for everything once the subscriber has its
        /// subscription, and values pass on whatever the subscriber's demand.
        @inlinable static var requestsUnlimited: Bool { true }

        /// As in Combine, the subscription's mirror has no children.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            []
        }

        @usableFromInline let output: Upstream.Output
        @usableFromInline var isEmpty = true

        @inlinable
        init(output: Upstream.Output) {
            self.output = output
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, Upstream.Failure> {
            isEmpty = false
            return .send(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>)
            -> ElementEnding<Upstream.Output, Upstream.Failure>
        {
            if case .finished = completion, isEmpty { return .sendAndFinish(output) }
            return .complete(completion)
        }
    }
}

extension Publisher {
    /// Replaces an empty stream with the provided element.
    ///
    /// If the upstream finishes without publishing any elements, this publisher publishes
    /// `output` (once the downstream has demand for it) and then finishes. A failure passes
    /// through unchanged.
    ///
    /// - Parameter output: An element to emit when the upstream publisher finishes without
    ///   emitting any elements.
    /// - Returns: A publisher that replaces an empty stream with the provided output element.
    @inlinable
    public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
        Publishers.ReplaceEmpty(upstream: self, output: output)
    }
}

// MARK: Fused overloads

extension Just {
    /// `Just` is never empty: returns this publisher.
    @inlinable
    public func replaceEmpty(with output: Output) -> Just<Output> { self }
}

extension Optional.Publisher {
    /// Resolves at once: a `Just` of the value, or of `output` when there is none.
    @inlinable
    public func replaceEmpty(with output: Wrapped) -> Just<Wrapped> {
        Just(self.output ?? output)
    }
}

extension Result.Publisher {
    /// A `Result.Publisher` is never empty (it publishes a value or fails): returns this publisher.
    @inlinable
    public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher { self }
}
