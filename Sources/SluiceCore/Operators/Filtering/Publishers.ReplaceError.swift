extension Publishers {
    /// A publisher that replaces any error in the stream with a provided element.
    ///
    /// `ReplaceError` has a subscription of its own (named "ReplaceError"): values and demand pass
    /// through; when the upstream fails, it publishes ``output`` — as soon as the downstream has
    /// demand for it — and finishes. It never fails.
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// This publisher never fails.
        public typealias Failure = Never

        /// The element with which to replace errors from the upstream publisher.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that replaces any error in the stream with a provided element.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(output: output), downstream: subscriber,
                                                         name: "ReplaceError"))
        }
    }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceError {
    /// Passes values through; turns a failure into the replacement value and `.finished`.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: a value while the subscriber has no demand stops the program.
        @inlinable static var trapsOnValueWithoutDemand: Bool { true }

        /// As in Combine, the subscription's mirror has no children.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            []
        }

        @usableFromInline let output: Upstream.Output

        @inlinable
        init(output: Upstream.Output) {
            self.output = output
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, Never> {
            .send(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) -> ElementEnding<Upstream.Output, Never> {
            switch completion {
            case .finished: return .complete(.finished)
            case .failure: return .sendAndFinish(output)
            }
        }
    }
}

extension Publisher {
    /// Replaces any error in the stream with the provided element.
    ///
    /// If the upstream fails, this publisher publishes `output` and finishes normally. The
    /// replacement is sent only once the downstream has demand for it.
    ///
    /// - Parameter output: An element to emit when the upstream publisher fails.
    /// - Returns: A publisher that replaces an error from the upstream publisher with the provided
    ///   output element.
    @inlinable
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}

// MARK: Fused overloads

extension Just {
    /// `Just` never fails: returns this publisher.
    @inlinable
    public func replaceError(with output: Output) -> Just<Output> { self }
}

extension Optional.Publisher {
    /// `Optional.Publisher` never fails: returns this publisher.
    @inlinable
    public func replaceError(with output: Wrapped) -> Optional<Wrapped>.Publisher { self }
}

extension Result.Publisher {
    /// Resolves at once: the success value, or `output` in place of the failure.
    @inlinable
    public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
        switch result {
        case .success(let value):
            return Result<Output, Never>.Publisher(.success(value))
        case .failure:
            return Result<Output, Never>.Publisher(.success(output))
        }
    }
}
