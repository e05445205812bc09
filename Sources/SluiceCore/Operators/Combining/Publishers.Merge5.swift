extension Publishers {
    /// A publisher created by applying the merge function to five upstream publishers.
    ///
    /// Republishes the values of every upstream as they arrive, interleaved, as one stream.
    /// Demand the downstream requests is forwarded to every upstream; the merged stream never
    /// delivers more than the downstream's total demand — values arriving beyond it are kept, in
    /// arrival order, until demand comes. It finishes when every upstream has finished; the first
    /// failure cancels the other upstreams and ends the stream. Values arriving from several threads
    /// reach the downstream one at a time. The upstreams are subscribed in order, so synchronous
    /// upstreams deliver in order (all of `a`'s values, then `b`'s...).
    public struct Merge5<A, B, C, D, E>: Publisher
    where A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher,
        A.Failure == B.Failure,
        A.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output,
        C.Failure == D.Failure,
        C.Output == D.Output,
        D.Failure == E.Failure,
        D.Output == E.Output
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

        /// A fourth publisher to merge.
        public let d: D

        /// A fifth publisher to merge.
        public let e: E

        /// Creates a publisher created by applying the merge function to five upstream publishers.
        ///
        /// - Parameters:
        ///   - a: A publisher to merge.
        ///   - b: A second publisher to merge.
        ///   - c: A third publisher to merge.
        ///   - d: A fourth publisher to merge.
        ///   - e: A fifth publisher to merge.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
        }

        /// Attaches the subscriber, then subscribes to each upstream in order.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let engine = MergeEngine(downstream: subscriber, upstreamCount: 5)
            engine.start()
            engine.attach(a, at: 0)
            engine.attach(b, at: 1)
            engine.attach(c, at: 2)
            engine.attach(d, at: 3)
            engine.attach(e, at: 4)
        }
    }
}

extension Publishers.Merge5 {
    /// Merges this merge's upstreams with another publisher: one flat `Merge6` rather than a merge of merges.
    @inlinable
    public func merge<P>(with other: P) -> Publishers.Merge6<A, B, C, D, E, P>
    where P: Publisher, E.Failure == P.Failure, E.Output == P.Output {
        Publishers.Merge6(a, b, c, d, e, other)
    }

    /// Merges this merge's upstreams with two other publishers: one flat `Merge7` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge7<A, B, C, D, E, Z, Y>
    where Z: Publisher, Y: Publisher, E.Failure == Z.Failure, E.Output == Z.Output, Z.Failure == Y.Failure,
        Z.Output == Y.Output
    {
        Publishers.Merge7(a, b, c, d, e, z, y)
    }

    /// Merges this merge's upstreams with three other publishers: one flat `Merge8` rather than a merge of merges.
    @inlinable
    public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge8<A, B, C, D, E, Z, Y, X>
    where Z: Publisher, Y: Publisher, X: Publisher, E.Failure == Z.Failure, E.Output == Z.Output,
        Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
    {
        Publishers.Merge8(a, b, c, d, e, z, y, x)
    }
}

extension Publishers.Merge5: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable {
    /// Returns a Boolean value that indicates whether two publishers are equivalent.
    ///
    /// - Returns: `true` if the two merging publishers have equal source publishers.
    @inlinable
    public static func == (lhs: Publishers.Merge5<A, B, C, D, E>, rhs: Publishers.Merge5<A, B, C, D, E>) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e
    }
}

extension Publisher {
    /// Combines elements from this publisher with those from four other publishers, delivering an
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
    ///   - d: A fourth publisher.
    ///   - e: A fifth publisher.
    /// - Returns: A publisher that emits an event when any upstream publisher emits an event.
    @inlinable
    public func merge<B, C, D, E>(with b: B, _ c: C, _ d: D, _ e: E) -> Publishers.Merge5<Self, B, C, D, E>
    where B: Publisher, C: Publisher, D: Publisher, E: Publisher, Self.Failure == B.Failure,
        Self.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure,
        C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output
    {
        Publishers.Merge5(self, b, c, d, e)
    }
}
