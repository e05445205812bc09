extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a given error-throwing
    /// closure returns false.
    ///
    /// `TryDropWhile` has a subscription of its own (named "TryDropWhile"). A dropped element is
    /// replaced by asking the upstream for one more. When ``predicate`` throws, it cancels the
    /// upstream and fails with the error; once it returns `false` it is never called again.
    public struct TryDropWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: any error, thrown or from upstream.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that indicates whether to drop the element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that omits elements from an upstream publisher until a given
        /// error-throwing closure returns false.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - predicate: The error-throwing closure that indicates whether to drop the element.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(predicate: predicate), downstream: subscriber,
                                                         name: "TryDropWhile"))
        }
    }
}

extension Publishers.TryDropWhile {
    /// Drops while the predicate holds, then lets everything through; a thrown error ends the
    /// stream.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine, the subscription's mirror has no children.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            []
        }

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool
        @usableFromInline var isDropping = true

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ElementDecision<Upstream.Output, any Error> {
            if isDropping {
                do {
                    if try predicate(input) { return .drop }
                } catch {
                    return .fail(error)
                }
                isDropping = false
            }
            return .send(input)
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
    /// Omits elements from the upstream publisher until an error-throwing closure returns false,
    /// before republishing all remaining elements.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    /// A dropped element is replaced by requesting one more from upstream.
    ///
    /// - Parameter predicate: A closure that takes an element as a parameter and returns a Boolean
    ///   value indicating whether to drop the element from the publisher's output.
    /// - Returns: A publisher that skips over elements until the provided closure returns
    ///   `false`, and then republishes all remaining elements. If the predicate closure throws,
    ///   the publisher fails with an error.
    @inlinable
    public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
        Publishers.TryDropWhile(upstream: self, predicate: predicate)
    }
}
