extension Publishers {
    /// A publisher that publishes only elements that don't match the previous element.
    ///
    /// `RemoveDuplicates` adds no subscription of its own. A duplicate is replaced by asking the
    /// upstream for one more value (returning `.max(1)` from `receive`), so a subscriber with
    /// limited demand still receives every distinct value. Each value, published or not, becomes
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

        /// Attaches the subscriber, wrapped so that duplicates don't reach it.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, predicate: predicate))
        }
    }
}

extension Publishers.RemoveDuplicates {
    /// The subscriber `RemoveDuplicates` puts upstream: forwards values that differ from the
    /// previous one, and replaces the demand a duplicate used.
    ///
    /// The previous value is touched only from the upstream's `receive(_:)`, which the contract
    /// serialises; so it needs no lock.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let predicate: (Upstream.Output, Upstream.Output) -> Bool
        @usableFromInline var last: Upstream.Output?

        @inlinable
        init(downstream: Downstream, predicate: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.downstream = downstream
            self.predicate = predicate
        }

        @inlinable
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let previous = last
            last = input
            if let previous, predicate(previous, input) { return .max(1) }
            return downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline var description: String { "RemoveDuplicates" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }
        @usableFromInline var playgroundDescription: Any { description }
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
