extension Publishers {
    /// A publisher that republishes items from another publisher only if each new item is in
    /// increasing order from the previously-published item.
    ///
    /// `max()` and `max(by:)` create one with the given ordering; `min()` and `min(by:)` with the
    /// reversed ordering. It publishes the winning element when the upstream finishes, or just
    /// finishes if the upstream published nothing.
    public struct Comparison<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns true if they are in increasing order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a publisher that republishes the greatest element according to
        /// `areInIncreasingOrder`.
        @inlinable
        public init(upstream: Upstream,
                    areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(
                reducer: Step(areInIncreasingOrder: areInIncreasingOrder), downstream: subscriber,
                name: "Comparison"))
        }
    }
}

extension Publishers.Comparison {
    /// The step of `Comparison`: keeps the first greatest element.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline var best: Upstream.Output?
        @usableFromInline let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        @inlinable
        init(areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<Upstream.Output, Upstream.Failure> {
            if let current = best {
                if areInIncreasingOrder(current, input) { best = input }
            } else {
                best = input
            }
            return .continue
        }

        @inlinable
        func result() -> Upstream.Output? { best }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
    }
}

extension Publisher where Output: Comparable {
    /// Publishes the minimum value received from the upstream publisher, after it finishes.
    ///
    /// It requests unlimited items from its upstream publisher as soon as it is subscribed, and
    /// publishes the result once the subscriber has asked for it.
    ///
    /// - Returns: A publisher that publishes the minimum value received from the upstream
    ///   publisher, after the upstream publisher finishes.
    @inlinable
    public func min() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self) { $1 < $0 }
    }

    /// Publishes the maximum value received from the upstream publisher, after it finishes.
    ///
    /// It requests unlimited items from its upstream publisher as soon as it is subscribed, and
    /// publishes the result once the subscriber has asked for it.
    ///
    /// - Returns: A publisher that publishes the maximum value received from the upstream
    ///   publisher, after the upstream publisher finishes.
    @inlinable
    public func max() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self) { $0 < $1 }
    }
}

extension Publisher {
    /// Publishes the minimum value received from the upstream publisher, using the provided
    /// ordering closure.
    ///
    /// - Parameter areInIncreasingOrder: A closure that receives two elements and returns `true`
    ///   if they're in increasing order.
    /// - Returns: A publisher that publishes the minimum value received from the upstream
    ///   publisher, after the upstream publisher finishes.
    @inlinable
    public func min(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self) { areInIncreasingOrder($1, $0) }
    }

    /// Publishes the maximum value received from the upstream publisher, using the provided
    /// ordering closure.
    ///
    /// - Parameter areInIncreasingOrder: A closure that receives two elements and returns `true`
    ///   if they're in increasing order.
    /// - Returns: A publisher that publishes the maximum value received from the upstream
    ///   publisher, after the upstream publisher finishes.
    @inlinable
    public func max(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence where Failure == Never {
    /// Finds the sequence's minimum at once; publishes nothing if it's empty.
    @inlinable
    public func min(by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool)
        -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.min(by: areInIncreasingOrder))
    }

    /// Finds the sequence's maximum at once; publishes nothing if it's empty.
    @inlinable
    public func max(by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool)
        -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.max(by: areInIncreasingOrder))
    }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
    /// Finds the sequence's minimum at once; publishes nothing if it's empty.
    @inlinable
    public func min() -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.min())
    }

    /// Finds the sequence's maximum at once; publishes nothing if it's empty.
    @inlinable
    public func max() -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.max())
    }
}

extension Just {
    /// The minimum of one output is the output itself.
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> { self }

    /// The maximum of one output is the output itself.
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> { self }
}

extension Just where Output: Comparable {
    /// The minimum of one output is the output itself.
    @inlinable
    public func min() -> Just<Output> { self }

    /// The maximum of one output is the output itself.
    @inlinable
    public func max() -> Just<Output> { self }
}

extension Optional.Publisher {
    /// The minimum of at most one output is that output.
    @inlinable
    public func min(by areInIncreasingOrder: (Wrapped, Wrapped) -> Bool) -> Optional<Wrapped>.Publisher { self }

    /// The maximum of at most one output is that output.
    @inlinable
    public func max(by areInIncreasingOrder: (Wrapped, Wrapped) -> Bool) -> Optional<Wrapped>.Publisher { self }
}

extension Optional.Publisher where Wrapped: Comparable {
    /// The minimum of at most one output is that output.
    @inlinable
    public func min() -> Optional<Wrapped>.Publisher { self }

    /// The maximum of at most one output is that output.
    @inlinable
    public func max() -> Optional<Wrapped>.Publisher { self }
}

extension Result.Publisher {
    /// The minimum of one output is the output itself (or the failure).
    @inlinable
    public func min(by areInIncreasingOrder: (Success, Success) -> Bool) -> Result<Success, Failure>.Publisher { self }

    /// The maximum of one output is the output itself (or the failure).
    @inlinable
    public func max(by areInIncreasingOrder: (Success, Success) -> Bool) -> Result<Success, Failure>.Publisher { self }
}

extension Result.Publisher where Success: Comparable {
    /// The minimum of one output is the output itself (or the failure).
    @inlinable
    public func min() -> Result<Success, Failure>.Publisher { self }

    /// The maximum of one output is the output itself (or the failure).
    @inlinable
    public func max() -> Result<Success, Failure>.Publisher { self }
}
