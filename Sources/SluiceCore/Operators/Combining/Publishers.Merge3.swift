extension Publishers {
    /// A publisher created by applying the merge function to three upstream publishers.
    ///
    /// Republishes the values of every upstream as they arrive, interleaved, as one stream.
    /// Demand the downstream requests is forwarded to every upstream; the merged stream never
    /// delivers more than the downstream's total demand — values arriving beyond it are kept, in
    /// arrival order, until demand comes. It finishes when every upstream has finished; the first
    /// failure cancels the other upstreams and ends the stream. Values arriving from several threads
    /// reach the downstream one at a time. The upstreams are subscribed in order, so synchronous
    /// upstreams deliver in order (all of `a`'s values, then `b`'s...).
    public struct Merge3<A, B, C>: Publisher
    where A: Publisher, B: Publisher, C: Publisher,
        A.Failure == B.Failure,
        A.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output
    {
        /// The kind of values published by this publisher: the upstreams' output.
        public typealias Output = A.Output
        /// The kind of errors this publisher might publish: the upstreams' failure.
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// A second publisher to merge.
        public let b: B

        /// A third publisher to merge.
        public let c: C

        /// Creates a publisher created by applying the merge function to three upstream publishers.
        ///
        /// - Parameters:
        ///   - a: A publisher to merge.
        ///   - b: A second publisher to merge.
        ///   - c: A third publisher to merge.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Attaches the subscriber, then subscribes to each upstream in order.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let engine = MergeEngine(downstream: subscriber, upstreamCount: 3)
            engine.start()
            engine.attach(a, at: 0)
            engine.attach(b, at: 1)
            engine.attach(c, at: 2)
        }
    }
}

extension Publishers.Merge3 {
    /// Merges this merge's upstreams with another publisher: one flat `Merge4` rather than a merge of merges.
    @inlinable
    public func merge<P>(with other: P) -> Publishers.Merge4<A, B, C, P>
    where P: Publisher, C.Failure == P.Failure, C.Output == P.Output {
        Publishers.Merge4(a, b, c, other)
    }

    /// Merges this merge's upstreams with two other publishers: one flat `Merge5` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge5<A, B, C, Z, Y>
    where Z: Publisher, Y: Publisher, C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure,
        Z.Output == Y.Output
    {
        Publishers.Merge5(a, b, c, z, y)
    }

    /// Merges this merge's upstreams with three other publishers: one flat `Merge6` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge6<A, B, C, Z, Y, X>
    where Z: Publisher, Y: Publisher, X: Publisher, C.Failure == Z.Failure, C.Output == Z.Output,
        Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
    {
        Publishers.Merge6(a, b, c, z, y, x)
    }

    /// Merges this merge's upstreams with four other publishers: one flat `Merge7` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge7<A, B, C, Z, Y, X, W>
    where Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, C.Failure == Z.Failure, C.Output == Z.Output,
        Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
        X.Failure == W.Failure, X.Output == W.Output
    {
        Publishers.Merge7(a, b, c, z, y, x, w)
    }

    /// Merges this merge's upstreams with five other publishers: one flat `Merge8` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X, W, V>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V)
        -> Publishers.Merge8<A, B, C, Z, Y, X, W, V>
    where Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, C.Failure == Z.Failure,
        C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure,
        Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure,
        W.Output == V.Output
    {
        Publishers.Merge8(a, b, c, z, y, x, w, v)
    }
}

extension Publishers.Merge3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Returns a Boolean value that indicates whether two publishers are equivalent.
    ///
    /// - Returns: `true` if the two merging publishers have equal source publishers.
    @inlinable
    public static func == (lhs: Publishers.Merge3<A, B, C>, rhs: Publishers.Merge3<A, B, C>) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publisher {
    /// Combines elements from this publisher with those from two other publishers, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher republishes each upstream's values as they arrive and finishes when all
    /// upstreams have finished; a failure from any cancels the others and ends the stream.
    /// Downstream demand is forwarded to every upstream, and no more values than demanded are
    /// delivered (extra values wait, in arrival order).
    ///
    /// - Parameters:
    ///   - b: A second publisher.
    ///   - c: A third publisher.
    /// - Returns: A publisher that emits an event when any upstream publisher emits an event.
    @inlinable
    public func merge<B, C>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
    where B: Publisher, C: Publisher, Self.Failure == B.Failure, Self.Output == B.Output, B.Failure == C.Failure,
        B.Output == C.Output
    {
        Publishers.Merge3(self, b, c)
    }
}
