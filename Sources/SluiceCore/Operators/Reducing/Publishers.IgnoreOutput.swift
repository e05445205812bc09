extension Publishers {
    /// A publisher that ignores all upstream elements, but passes along the upstream publisher's
    /// completion state (finished or failed).
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: none.
        public typealias Output = Never

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that ignores all upstream elements and passes along the upstream's
        /// completion.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through a pass-through subscriber.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(Inner(downstream: subscriber))
        }
    }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}

extension Publishers.IgnoreOutput {
    /// The subscriber `IgnoreOutput` puts upstream. As Apple's, it wraps nothing: it hands the
    /// upstream's own subscription downstream, then requests `.unlimited` from it (on every
    /// subscription it receives); it drops every value and passes every completion through.
    /// Demand and cancel from the downstream reach the upstream unchanged.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Never, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
            subscription.request(.unlimited)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand { .none }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline var description: String { "IgnoreOutput" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Ignores all upstream elements, but passes along the upstream publisher's completion state
    /// (finished or failed).
    ///
    /// - Returns: A publisher that ignores all upstream elements.
    @inlinable
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Ignores the sequence's elements: an `Empty` that finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Elements.Element, Failure> {
        Empty()
    }
}

extension Just {
    /// Ignores the output: an `Empty` that finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Output, Never> {
        Empty()
    }
}

extension Optional.Publisher {
    /// Ignores the output: an `Empty` that finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Wrapped, Never> {
        Empty()
    }
}

extension Result.Publisher {
    /// Ignores the output: an `Empty` that finishes at once.
    ///
    /// Apple declares this overload as returning `Empty<Output, Failure>`, which cannot fail: the
    /// error of a `.failure` result is not reported — the publisher just finishes. Use
    /// `eraseToAnyPublisher().ignoreOutput()` to keep the failure.
    @inlinable
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty()
    }
}
