extension Publishers {
    /// A publisher that publishes only elements that don't match the previous element.
    ///
    /// `RemoveDuplicates` has a subscription of its own (named "RemoveDuplicates"). A duplicate is
    /// replaced by asking the upstream for one more value (returning `.max(1)` from `receive`), so
    /// a subscriber with limited demand still receives every distinct value. Each value, published or not, becomes
    /// the "previous element" the next one is compared with.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure to evaluate whether two elements are equivalent; `true` means the second is
        /// a duplicate of the first.
        public let predicate: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a publisher that publishes only elements that don't match the previous element,
        /// as evaluated by a provided closure.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(predicate: predicate), downstream: subscriber,
                                                         name: "RemoveDuplicates"))
        }
    }
}

extension Publishers.RemoveDuplicates {
    /// Drops values equivalent to the previous one.
    ///
    /// As in Combine, the operator has a subscription of its own ("RemoveDuplicates"): an event or
    /// a request before the upstream's subscription traps, and a subscription arriving after a
    /// cancel is cancelled.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: an event or a request before the subscription traps.
        @inlinable static var earlyEvents: EarlyEventHandling { .trap }

        /// As in Combine: the downstream and the last value received.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            [(label: "downstream", value: downstream), (label: "last", value: last as Any)]
        }

        @usableFromInline let predicate: (Upstream.Output, Upstream.Output) -> Bool
        /// The previous value; every value, published or not, becomes the previous one.
        @usableFromInline var last: Upstream.Output?

        @inlinable
        init(predicate: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, Upstream.Failure> {
            let previous = last
            last = input
            if let previous, predicate(previous, input) { return .drop }
            return .send(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>)
            -> ElementEnding<Upstream.Output, Upstream.Failure>
        {
            .complete(completion)
        }
    }
}

extension Publisher where Output: Equatable {
    /// Publishes only elements that don't match the previous element.
    ///
    /// A duplicate is replaced by requesting one more element from upstream, so downstream demand
    /// counts only the elements it receives.
    ///
    /// - Returns: A publisher that consumes — rather than publishes — duplicate elements.
    @inlinable
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: ==)
    }
}

extension Publisher {
    /// Publishes only elements that don't match the previous element, as evaluated by a provided
    /// closure.
    ///
    /// The closure receives the previous element and the current one; return `true` to drop the
    /// current one as a duplicate. Every element becomes the previous element for the next
    /// comparison. A duplicate is replaced by requesting one more element from upstream.
    ///
    /// - Parameter predicate: A closure to evaluate whether two elements are equivalent, for
    ///   purposes of filtering.
    /// - Returns: A publisher that consumes — rather than publishes — duplicate elements.
    @inlinable
    public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool) -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Just {
    /// A single output has no duplicates: returns this publisher; `predicate` is never called.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> { self }
}

extension Just where Output: Equatable {
    /// A single output has no duplicates: returns this publisher.
    @inlinable
    public func removeDuplicates() -> Just<Output> { self }
}

extension Optional.Publisher {
    /// At most one value has no duplicates: returns this publisher; `predicate` is never called.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Wrapped>.Publisher { self }
}

extension Optional.Publisher where Wrapped: Equatable {
    /// At most one value has no duplicates: returns this publisher.
    @inlinable
    public func removeDuplicates() -> Optional<Wrapped>.Publisher { self }
}

extension Result.Publisher {
    /// At most one value has no duplicates: returns this publisher; `predicate` is never called.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher { self }
}

extension Result.Publisher where Success: Equatable {
    /// At most one value has no duplicates: returns this publisher.
    @inlinable
    public func removeDuplicates() -> Result<Output, Failure>.Publisher { self }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// Removes consecutive duplicates at once, returning a publisher of the remaining array.
    @inlinable
    public func removeDuplicates() -> Publishers.Sequence<[Output], Failure> {
        var results: [Output] = []
        for element in sequence where results.last != element {
            results.append(element)
        }
        return Publishers.Sequence<[Output], Failure>(sequence: results)
    }
}
