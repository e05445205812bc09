extension Publishers {
    /// A publisher created by applying the merge function to two upstream publishers.
    ///
    /// Republishes the values of every upstream as they arrive, interleaved, as one stream.
    /// Demand the downstream requests is forwarded to every upstream; the merged stream never
    /// delivers more than the downstream's total demand — values arriving beyond it are kept, in
    /// arrival order, until demand comes. It finishes when every upstream has finished; the first
    /// failure cancels the other upstreams and ends the stream. Values arriving from several threads
    /// reach the downstream one at a time. The upstreams are subscribed in order, so synchronous
    /// upstreams deliver in order (all of `a`'s values, then `b`'s...).
    public struct Merge<A, B>: Publisher
    where A: Publisher, B: Publisher,
        A.Failure == B.Failure,
        A.Output == B.Output
    {
        /// The kind of values published by this publisher: the upstreams' output.
        public typealias Output = A.Output
        /// The kind of errors this publisher might publish: the upstreams' failure.
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// A second publisher to merge.
        public let b: B

        /// Creates a publisher created by applying the merge function to two upstream publishers.
        ///
        /// - Parameters:
        ///   - a: A publisher to merge.
        ///   - b: A second publisher to merge.
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Attaches the subscriber, then subscribes to each upstream in order.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let engine = MergeEngine(downstream: subscriber, upstreamCount: 2)
            engine.start()
            engine.attach(a, at: 0)
            engine.attach(b, at: 1)
        }
    }
}

extension Publishers.Merge {
    /// Merges this merge's upstreams with another publisher: one flat `Merge3` rather than a merge of merges.
    @inlinable
    public func merge<P>(with other: P) -> Publishers.Merge3<A, B, P>
    where P: Publisher, B.Failure == P.Failure, B.Output == P.Output {
        Publishers.Merge3(a, b, other)
    }

    /// Merges this merge's upstreams with two other publishers: one flat `Merge4` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge4<A, B, Z, Y>
    where Z: Publisher, Y: Publisher, B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure,
        Z.Output == Y.Output
    {
        Publishers.Merge4(a, b, z, y)
    }

    /// Merges this merge's upstreams with three other publishers: one flat `Merge5` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge5<A, B, Z, Y, X>
    where Z: Publisher, Y: Publisher, X: Publisher, B.Failure == Z.Failure, B.Output == Z.Output,
        Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
    {
        Publishers.Merge5(a, b, z, y, x)
    }

    /// Merges this merge's upstreams with four other publishers: one flat `Merge6` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge6<A, B, Z, Y, X, W>
    where Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, B.Failure == Z.Failure, B.Output == Z.Output,
        Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
        X.Failure == W.Failure, X.Output == W.Output
    {
        Publishers.Merge6(a, b, z, y, x, w)
    }

    /// Merges this merge's upstreams with five other publishers: one flat `Merge7` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X, W, V>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V)
        -> Publishers.Merge7<A, B, Z, Y, X, W, V>
    where Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, B.Failure == Z.Failure,
        B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure,
        Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure,
        W.Output == V.Output
    {
        Publishers.Merge7(a, b, z, y, x, w, v)
    }

    /// Merges this merge's upstreams with six other publishers: one flat `Merge8` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X, W, V, U>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V, _ u: U)
        -> Publishers.Merge8<A, B, Z, Y, X, W, V, U>
    where Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, U: Publisher,
        B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output,
        Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output,
        W.Failure == V.Failure, W.Output == V.Output, V.Failure == U.Failure, V.Output == U.Output
    {
        Publishers.Merge8(a, b, z, y, x, w, v, u)
    }
}

extension Publishers.Merge: Equatable where A: Equatable, B: Equatable {
    /// Returns a Boolean value that indicates whether two publishers are equivalent.
    ///
    /// - Returns: `true` if the two merging publishers have equal source publishers.
    @inlinable
    public static func == (lhs: Publishers.Merge<A, B>, rhs: Publishers.Merge<A, B>) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publisher {
    /// Combines elements from this publisher with those from another publisher, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher republishes each upstream's values as they arrive and finishes when both
    /// upstreams have finished; a failure from either cancels the other and ends the stream.
    /// Downstream demand is forwarded to both upstreams, and no more values than demanded are
    /// delivered (extra values wait, in arrival order). To merge with a publisher of this same type,
    /// Swift picks `merge(with: Self)`, which returns a `MergeMany`.
    ///
    /// - Parameter other: Another publisher.
    /// - Returns: A publisher that emits an event when either upstream publisher emits an event.
    @inlinable
    public func merge<P>(with other: P) -> Publishers.Merge<Self, P>
    where P: Publisher, Self.Failure == P.Failure, Self.Output == P.Output {
        Publishers.Merge(self, other)
    }
}
