extension Publishers {
    /// A publisher that publishes only elements that don't match the previous element, as
    /// evaluated by a provided error-throwing closure.
    ///
    /// `TryRemoveDuplicates` has a subscription of its own (named "TryRemoveDuplicates"). A
    /// duplicate is replaced by asking the upstream for one more value. When ``predicate``
    /// throws, it cancels the upstream and fails with the error.
    public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: any error, thrown or from upstream.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure to evaluate whether two elements are equivalent; `true` means
        /// the second is a duplicate of the first.
        public let predicate: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes only elements that don't match the previous element,
        /// as evaluated by a provided error-throwing closure.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(predicate: predicate), downstream: subscriber,
                                                         name: "TryRemoveDuplicates"))
        }
    }
}

extension Publishers.TryRemoveDuplicates {
    /// Drops values equivalent to the previous one; a thrown error ends the stream.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: an event or a request before the subscription traps.
        @inlinable static var earlyEvents: EarlyEventHandling { .trap }

        /// As in Combine: the downstream and the last value published.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            [(label: "downstream", value: downstream), (label: "last", value: last as Any)]
        }

        @usableFromInline let predicate: (Upstream.Output, Upstream.Output) throws -> Bool
        @usableFromInline var last: Upstream.Output?

        @inlinable
        init(predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, any Error> {
            let previous = last
            last = input
            guard let previous else { return .send(input) }
            do {
                return try predicate(previous, input) ? .drop : .send(input)
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
    /// Publishes only elements that don't match the previous element, as evaluated by a provided
    /// error-throwing closure.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    /// A duplicate is replaced by requesting one more element from upstream.
    ///
    /// - Parameter predicate: A closure to evaluate whether two elements are equivalent, for
    ///   purposes of filtering; it may throw to end the stream with a failure.
    /// - Returns: A publisher that consumes — rather than publishes — duplicate elements.
    @inlinable
    public func tryRemoveDuplicates(by predicate: @escaping (Output, Output) throws -> Bool)
        -> Publishers.TryRemoveDuplicates<Self>
    {
        Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Just {
    /// A single output has no duplicates: the result publishes it. As Apple's, `predicate` is
    /// called once, with the output twice; if it throws, the result fails with the error.
    @inlinable
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(Result { _ = try predicate(output, output); return output })
    }
}

extension Result.Publisher {
    /// At most one value has no duplicates: the result publishes the same result with an
    /// `any Error` failure. As Apple's, on success `predicate` is called once, with the value
    /// twice; if it throws, the result fails with the error.
    @inlinable
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool)
        -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(
            result.mapError { $0 as any Error }.flatMap { output in
                Result<Output, any Error> { _ = try predicate(output, output); return output }
            })
    }
}
