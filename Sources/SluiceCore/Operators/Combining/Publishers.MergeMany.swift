extension Publishers {
    /// A publisher created by applying the merge function to an arbitrary number of upstream
    /// publishers.
    ///
    /// Republishes the values of every upstream as they arrive, interleaved, as one stream.
    /// Demand the downstream requests is forwarded to every upstream; the merged stream never
    /// delivers more than the downstream's total demand — values arriving beyond it are kept, in
    /// arrival order, until demand comes. It finishes when every upstream has finished (at once, if
    /// there are none); the first failure cancels the other upstreams and ends the stream. Values
    /// arriving from several threads reach the downstream one at a time. The upstreams are
    /// subscribed in order, so synchronous upstreams deliver in order.
    public struct MergeMany<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstreams' output.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstreams' failure.
        public typealias Failure = Upstream.Failure

        /// The array of upstream publishers that this publisher merges together.
        public let publishers: [Upstream]

        /// Creates a publisher created by applying the merge function to an arbitrary number of
        /// upstream publishers.
        ///
        /// - Parameter upstream: A variadic parameter containing zero or more publishers to merge
        ///   with this publisher.
        @inlinable
        public init(_ upstream: Upstream...) {
            publishers = upstream
        }

        /// Creates a publisher created by applying the merge function to a sequence of upstream
        /// publishers.
        ///
        /// - Parameter upstream: A sequence containing zero or more publishers to merge with this
        ///   publisher.
        @inlinable
        public init<S: Swift.Sequence>(_ upstream: S) where Upstream == S.Element {
            publishers = Array(upstream)
        }

        /// Attaches the subscriber, then subscribes to each upstream in order.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let engine = MergeEngine(downstream: subscriber, upstreamCount: publishers.count)
            engine.start()
            for (index, publisher) in publishers.enumerated() {
                engine.attach(publisher, at: index)
            }
        }

        /// Combines elements from this publisher with those from another publisher of the same
        /// type, delivering an interleaved sequence of elements.
        ///
        /// - Parameter other: Another publisher of this publisher's upstream type.
        /// - Returns: A `MergeMany` of this publisher's upstreams followed by `other`.
        @inlinable
        public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
            Publishers.MergeMany(publishers + CollectionOfOne(other))
        }
    }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {
    /// Returns a Boolean value that indicates whether two publishers are equivalent.
    ///
    /// - Returns: `true` if the two merging publishers have equal upstream publishers, in the same
    ///   order.
    @inlinable
    public static func == (lhs: Publishers.MergeMany<Upstream>, rhs: Publishers.MergeMany<Upstream>) -> Bool {
        lhs.publishers == rhs.publishers
    }
}

extension Publisher {
    /// Combines elements from this publisher with those from another publisher of the same type,
    /// delivering an interleaved sequence of elements.
    ///
    /// Swift prefers this overload to the generic `merge(with:)` whenever `other` has this
    /// publisher's own type, as in Combine. The merged publisher finishes when both have
    /// finished; a failure from either cancels the other.
    ///
    /// - Parameter other: Another publisher of this publisher's type.
    /// - Returns: A publisher that emits an event when either upstream publisher emits an event.
    @inlinable
    public func merge(with other: Self) -> Publishers.MergeMany<Self> {
        Publishers.MergeMany(self, other)
    }
}
