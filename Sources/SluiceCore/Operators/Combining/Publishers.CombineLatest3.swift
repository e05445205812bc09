extension Publishers {
    /// A publisher that receives and combines the latest elements from three publishers.
    ///
    /// The publisher emits nothing until each upstream has published at least one element; from
    /// then on it publishes a tuple of the latest element of each upstream whenever any of them
    /// publishes. It finishes when every upstream has finished (after the tuple of the latest
    /// elements, if one is still owed, once demanded), and fails, cancelling the other upstreams,
    /// as soon as one fails.
    ///
    /// Demand: every request of the downstream is passed through to all upstreams, and at most the
    /// requested number of tuples is published. Without demand, each upstream's latest element is
    /// kept (a buffer of one per upstream, each new element replacing the previous), and the tuple
    /// of the latest elements is published as soon as demand arrives.
    ///
    /// Threading: the upstreams may publish concurrently from any threads; the tuples reach the
    /// downstream one at a time, in the order the elements arrived, none lost or duplicated.
    /// The subscription and the subscribers attached upstream are named "CombineLatest".
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure {
        /// The kind of values published by this publisher: a tuple of the latest element of each
        /// upstream.
        public typealias Output = (A.Output, B.Output, C.Output)

        /// The kind of errors this publisher might publish: the upstreams' common failure.
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// A third publisher to combine.
        public let c: C

        /// Creates a publisher that receives and combines the latest elements from three publishers.
        ///
        /// - Parameters:
        ///   - a: A publisher to combine.
        ///   - b: A second publisher to combine.
        ///   - c: A third publisher to combine.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Attaches the subscriber: subscribes to every upstream, in order, then hands the
        /// subscriber its subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Storage = CombiningStorage3<LatestSlot<A.Output>, LatestSlot<B.Output>, LatestSlot<C.Output>>
            let subscription = CombiningSubscription<Storage, S>(downstream: subscriber, name: "CombineLatest")
            a.attachSubscriber(CombiningInner<Storage.Lane0, S>(subscription))
            b.attachSubscriber(CombiningInner<Storage.Lane1, S>(subscription))
            c.attachSubscriber(CombiningInner<Storage.Lane2, S>(subscription))
            subscription.start(subscriber)
        }
    }
}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Returns a Boolean value that indicates whether two publishers are equivalent: whether
    /// their upstreams are equal, pairwise.
    ///
    /// - Parameters:
    ///   - lhs: A `CombineLatest3` publisher to compare for equality.
    ///   - rhs: Another `CombineLatest3` publisher to compare for equality.
    /// - Returns: `true` if the corresponding upstream publishers of each are equal.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publisher {
    /// Subscribes to two additional publishers and publishes a tuple upon receiving output from
    /// any of the publishers.
    ///
    /// Nothing is published until every publisher has published at least one element; then each
    /// element of any of them publishes a tuple of the latest element of each. Requests are
    /// passed through to all the publishers; without demand, only the latest element of each is
    /// kept. Finishes when all the publishers have finished; fails as soon as one fails.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher to combine with this one.
    ///   - publisher2: A third publisher to combine with this one.
    /// - Returns: A publisher that receives and combines elements from this and the other
    ///   publishers.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.CombineLatest3<Self, P, Q>
    where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    /// Subscribes to two additional publishers and invokes a closure upon receiving output
    /// from any of the publishers.
    ///
    /// As in Combine, this is a ``Publishers/Map`` over a ``Publishers/CombineLatest3``: the closure
    /// receives the latest element of each publisher, and demand and completion pass through.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher to combine with this one.
    ///   - publisher2: A third publisher to combine with this one.
    ///   - transform: A closure that receives the most-recent value from each publisher and
    ///     returns a new value to publish.
    /// - Returns: A publisher that receives and combines elements from this and the other
    ///   publishers.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, T>(
        _ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T> where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Map(upstream: Publishers.CombineLatest3(self, publisher1, publisher2)) {
            transform($0.0, $0.1, $0.2)
        }
    }
}
