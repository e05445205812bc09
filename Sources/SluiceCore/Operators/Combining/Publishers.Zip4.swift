extension Publishers {
    /// A publisher created by applying the zip function to four upstream publishers.
    ///
    /// Use `Publishers.Zip4` to combine the elements from four publishers and emit a tuple to the
    /// downstream: it waits until every upstream has emitted an element, then delivers the oldest
    /// unconsumed element from each upstream together as a tuple. Each element is used once.
    ///
    /// If any upstream fails, so does the zipped publisher, cancelling the others. It finishes as
    /// soon as an upstream has finished and every element it published has been paired (nothing
    /// more can be paired), cancelling the others.
    ///
    /// Demand: every request of the downstream is passed to each upstream — one tuple takes one
    /// element from each. As Apple's, a tuple goes downstream as soon as it is complete, without
    /// looking at the downstream's demand (an upstream that sends beyond its demand makes it exceed
    /// the downstream's), and a tuple completed by an element of one upstream returns to that
    /// upstream, from its `receive(_:)`, the demand the downstream adds while receiving the tuple
    /// (by returning it or by requesting it); the other upstreams are asked for it.
    ///
    /// Threading: the upstreams may publish concurrently from any threads; the tuples reach the
    /// downstream one at a time, none lost or duplicated. The subscription and the subscribers
    /// attached upstream are named "Zip".
    public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure {
        /// The kind of values published by this publisher: a tuple of one element of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)

        /// The kind of errors this publisher might publish: the upstreams' common failure.
        public typealias Failure = A.Failure

        /// A publisher to zip.
        public let a: A

        /// A second publisher to zip.
        public let b: B

        /// A third publisher to zip.
        public let c: C

        /// A fourth publisher to zip.
        public let d: D

        /// Creates a publisher that applies the zip function to four upstream publishers.
        ///
        /// - Parameters:
        ///   - a: A publisher to zip.
        ///   - b: A second publisher to zip.
        ///   - c: A third publisher to zip.
        ///   - d: A fourth publisher to zip.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Attaches the subscriber: subscribes to every upstream, in order, then hands the
        /// subscriber its subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Storage = CombiningStorage4<QueueSlot<A.Output>, QueueSlot<B.Output>, QueueSlot<C.Output>, QueueSlot<D.Output>>
            let subscription = CombiningSubscription<Storage, S>(downstream: subscriber, name: "Zip")
            a.attachSubscriber(CombiningInner<Storage.Lane0, S>(subscription))
            b.attachSubscriber(CombiningInner<Storage.Lane1, S>(subscription))
            c.attachSubscriber(CombiningInner<Storage.Lane2, S>(subscription))
            d.attachSubscriber(CombiningInner<Storage.Lane3, S>(subscription))
            subscription.start(subscriber)
        }
    }
}

extension Publishers.Zip4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Returns a Boolean value that indicates whether two publishers are equivalent: whether
    /// their upstreams are equal, pairwise.
    ///
    /// - Parameters:
    ///   - lhs: A `Zip4` publisher to compare for equality.
    ///   - rhs: Another `Zip4` publisher to compare for equality.
    /// - Returns: `true` if the corresponding upstream publishers of each are equal.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

extension Publisher {
    /// Combines elements from three other publishers and delivers groups of elements as tuples.
    ///
    /// The returned publisher waits until every publisher has emitted an element, then delivers
    /// the oldest unconsumed element from each together as a tuple. It finishes as soon as one
    /// of the publishers has finished and all its elements were paired, and fails as soon as one
    /// fails. Each request of the downstream is passed to each publisher.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher to zip with this one.
    ///   - publisher2: A third publisher to zip with this one.
    ///   - publisher3: A fourth publisher to zip with this one.
    /// - Returns: A publisher that emits groups of elements from the upstream publishers as
    ///   tuples.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.Zip4<Self, P, Q, R>
    where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.Zip4(self, publisher1, publisher2, publisher3)
    }

    /// Combines elements from three other publishers and delivers a transformed output.
    ///
    /// As in Combine, this is a ``Publishers/Map`` over a ``Publishers/Zip4``: the closure
    /// receives the oldest unconsumed element of each publisher, and demand and completion pass
    /// through.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher to zip with this one.
    ///   - publisher2: A third publisher to zip with this one.
    ///   - publisher3: A fourth publisher to zip with this one.
    ///   - transform: A closure that receives one element of each publisher — the oldest
    ///     unconsumed — and returns a new value to publish.
    /// - Returns: A publisher that uses the `transform` closure to emit new elements, produced by
    ///   combining the most recent value from the publishers.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher, T>(
        _ publisher1: P, _ publisher2: Q, _ publisher3: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
    ) -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T> where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.Map(upstream: Publishers.Zip4(self, publisher1, publisher2, publisher3)) {
            transform($0.0, $0.1, $0.2, $0.3)
        }
    }
}
