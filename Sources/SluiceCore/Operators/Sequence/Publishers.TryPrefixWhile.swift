extension Publishers {
    /// A publisher that republishes elements while an error-throwing predicate closure indicates
    /// publishing should continue.
    ///
    /// `TryPrefixWhile` has a subscription of its own (named "TryPrefixWhile"). At the first
    /// element for which ``predicate`` returns `false` it cancels the upstream and finishes; when
    /// the predicate throws, it cancels the upstream and fails with the error. Demand passes
    /// through unchanged.
    public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: any error, thrown or from upstream.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether publishing should continue.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that republishes elements while an error-throwing predicate closure
        /// indicates publishing should continue.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - predicate: The error-throwing closure that determines whether publishing should
        ///     continue.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(predicate: predicate), downstream: subscriber,
                                                         name: "TryPrefixWhile"))
        }
    }
}

extension Publishers.TryPrefixWhile {
    /// Sends while the predicate holds; finishes at the first element that fails it, fails when
    /// it throws.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: an event or a request before the subscription traps.
        @inlinable static var earlyEvents: EarlyEventHandling { .trap }

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, any Error> {
            do {
                return try predicate(input) ? .send(input) : .finish
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
    /// Republishes elements while an error-throwing predicate closure indicates publishing should
    /// continue.
    ///
    /// The publisher finishes — and cancels its upstream — when the closure returns `false`. If
    /// the closure throws, the publisher cancels its upstream and fails with the thrown error.
    ///
    /// - Parameter predicate: A closure that takes an element as its parameter and returns a
    ///   Boolean value indicating whether publishing should continue.
    /// - Returns: A publisher that passes through elements until the predicate throws or
    ///   indicates publishing should finish.
    @inlinable
    public func tryPrefix(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryPrefixWhile<Self> {
        Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
    }
}
