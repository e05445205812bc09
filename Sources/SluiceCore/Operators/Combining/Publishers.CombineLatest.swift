extension Publishers {
    /// A publisher that receives and combines the latest elements from two publishers.
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
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
        /// The kind of values published by this publisher: a tuple of the latest element of each
        /// upstream.
        public typealias Output = (A.Output, B.Output)

        /// The kind of errors this publisher might publish: the upstreams' common failure.
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// Creates a publisher that receives and combines the latest elements from two publishers.
        ///
        /// - Parameters:
        ///   - a: A publisher to combine.
        ///   - b: A second publisher to combine.
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Attaches the subscriber: subscribes to every upstream, in order, then hands the
        /// subscriber its subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Storage = CombiningStorage2<LatestSlot<A.Output>, LatestSlot<B.Output>>
            let subscription = CombiningSubscription<Storage, S>(downstream: subscriber, name: "CombineLatest")
            a.attachSubscriber(CombiningInner<Storage.Lane0, S>(subscription))
            b.attachSubscriber(CombiningInner<Storage.Lane1, S>(subscription))
            subscription.start(subscriber)
        }
    }
}

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {
    /// Returns a Boolean value that indicates whether two publishers are equivalent: whether
    /// their upstreams are equal, pairwise.
    ///
    /// - Parameters:
    ///   - lhs: A `CombineLatest` publisher to compare for equality.
    ///   - rhs: Another `CombineLatest` publisher to compare for equality.
    /// - Returns: `true` if the corresponding upstream publishers of each are equal.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publisher {
    /// Subscribes to an additional publisher and publishes a tuple upon receiving output from
    /// either publisher.
    ///
    /// Nothing is published until every publisher has published at least one element; then each
    /// element of any of them publishes a tuple of the latest element of each. Requests are
    /// passed through to all the publishers; without demand, only the latest element of each is
    /// kept. Finishes when all the publishers have finished; fails as soon as one fails.
    ///
    /// - Parameter other: Another publisher to combine with this one.
    /// - Returns: A publisher that receives and combines elements from this and the other
    ///   publishers.
    @inlinable
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
    where Failure == P.Failure {
        Publishers.CombineLatest(self, other)
    }

    /// Subscribes to an additional publisher and invokes a closure upon receiving output from
    /// either publisher.
    ///
    /// As in Combine, this is a ``Publishers/Map`` over a ``Publishers/CombineLatest``: the closure
    /// receives the latest element of each publisher, and demand and completion pass through.
    ///
    /// - Parameters:
    ///   - other: Another publisher to combine with this one.
    ///   - transform: A closure that receives the most-recent value from each publisher and
    ///     returns a new value to publish.
    /// - Returns: A publisher that receives and combines elements from this and the other
    ///   publishers.
    @inlinable
    public func combineLatest<P: Publisher, T>(
        _ other: P, _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest<Self, P>, T> where Failure == P.Failure {
        Publishers.Map(upstream: Publishers.CombineLatest(self, other)) {
            transform($0.0, $0.1)
        }
    }
}
