extension Publishers {
    /// A publisher that republishes elements while a predicate closure indicates publishing
    /// should continue.
    ///
    /// `PrefixWhile` has a subscription of its own (named "PrefixWhile"). At the first element for
    /// which ``predicate`` returns `false` it cancels the upstream and finishes, without publishing
    /// that element. Demand passes through unchanged.
    public struct PrefixWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to continue republishing elements.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that republishes elements while a predicate closure indicates
        /// publishing should continue.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - predicate: The closure that determines whether to continue republishing elements.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(predicate: predicate), downstream: subscriber,
                                                         name: "PrefixWhile"))
        }
    }
}

extension Publishers.PrefixWhile {
    /// Sends while the predicate holds; finishes at the first element that fails it.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: an event or a request before the subscription traps.
        @inlinable static var earlyEvents: EarlyEventHandling { .trap }

        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, Upstream.Failure> {
            predicate(input) ? .send(input) : .finish
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>)
            -> ElementEnding<Upstream.Output, Upstream.Failure>
        {
            .complete(completion)
        }
    }
}

extension Publisher {
    /// Republishes elements while a predicate closure indicates publishing should continue.
    ///
    /// The publisher finishes — and cancels its upstream — when the closure returns `false`; the
    /// element that failed the test is not republished.
    ///
    /// ```swift
    /// let numbers = (0...10)
    /// numbers.publisher
    ///     .prefix { $0 < 5 }
    ///     .sink { print("\($0)", terminator: " ") }
    /// // Prints: "0 1 2 3 4 "
    /// ```
    ///
    /// - Parameter predicate: A closure that takes an element as its parameter and returns a
    ///   Boolean value that indicates whether publishing should continue.
    /// - Returns: A publisher that passes through elements until the predicate indicates
    ///   publishing should finish.
    @inlinable
    public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
        Publishers.PrefixWhile(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Takes the leading matching elements of the sequence itself.
    @inlinable
    public func prefix(while predicate: (Elements.Element) -> Bool)
        -> Publishers.Sequence<[Elements.Element], Failure>
    {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.prefix(while: predicate))
    }
}

extension Just {
    /// Tests the one output at once: publishes it if the predicate holds.
    @inlinable
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }
}

extension Optional.Publisher {
    /// Tests the output, if any, at once: publishes it if the predicate holds.
    @inlinable
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Wrapped>.Publisher {
        Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }
}
