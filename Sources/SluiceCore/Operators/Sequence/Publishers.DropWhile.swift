extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a given closure returns
    /// false.
    ///
    /// `DropWhile` has a subscription of its own (named "DropWhile"). A dropped element is replaced
    /// by asking the upstream for one more, so downstream demand counts only the elements it
    /// receives. Once ``predicate`` returns `false` it is never called again.
    public struct DropWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that indicates whether to drop the element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that omits elements from an upstream publisher until a given
        /// closure returns false.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - predicate: The closure that indicates whether to drop the element.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(predicate: predicate), downstream: subscriber,
                                                         name: "DropWhile"))
        }
    }
}

extension Publishers.DropWhile {
    /// Drops while the predicate holds, then lets everything through.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine, the subscription's mirror has no children.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            []
        }

        @usableFromInline let predicate: (Upstream.Output) -> Bool
        @usableFromInline var isDropping = true

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, Upstream.Failure> {
            if isDropping {
                if predicate(input) { return .drop }
                isDropping = false
            }
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

extension Publisher {
    /// Omits elements from the upstream publisher until a given closure returns false, before
    /// republishing all remaining elements.
    ///
    /// ```swift
    /// let numbers = [-62, -1, 0, 10, 0, 22, 41, -1, 5]
    /// cancellable = numbers.publisher
    ///     .drop { $0 <= 0 }
    ///     .sink { print("\($0)") }
    /// // Prints: "10 0 22 41 -1 5"
    /// ```
    ///
    /// A dropped element is replaced by requesting one more from upstream, so downstream demand
    /// counts only the elements it receives. The closure is not called after it returns `false`.
    ///
    /// - Parameter predicate: A closure that takes an element as a parameter and returns a Boolean
    ///   value indicating whether to drop the element from the publisher's output.
    /// - Returns: A publisher that skips over elements until the provided closure returns `false`.
    @inlinable
    public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
        Publishers.DropWhile(upstream: self, predicate: predicate)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Drops the leading matching elements of the sequence itself.
    @inlinable
    public func drop(while predicate: (Elements.Element) -> Bool)
        -> Publishers.Sequence<DropWhileSequence<Elements>, Failure>
    {
        Publishers.Sequence<DropWhileSequence<Elements>, Failure>(sequence: sequence.drop(while: predicate))
    }
}

extension Just {
    /// Tests the one output at once: publishes it unless the predicate drops it.
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? nil : output)
    }
}

extension Optional.Publisher {
    /// Tests the output, if any, at once: publishes it unless the predicate drops it.
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Wrapped>.Publisher {
        Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
    }
}
