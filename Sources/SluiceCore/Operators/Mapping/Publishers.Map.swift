extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided closure.
    ///
    /// `Map` adds no subscription of its own: the downstream receives the upstream's subscription,
    /// so demand passes straight through and each value costs one call of ``transform``.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) -> Output

        /// Creates a publisher that transforms all elements from the upstream publisher with a
        /// provided closure.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber, wrapped so that each value is transformed on its way.
        ///
        /// Operators attach upstream with `attachSubscriber(_:)` (`receive(subscriber:)`, or
        /// `subscribe`'s introspected path while an `_Introspection` is enabled), not
        /// `subscribe(_:)`: the compiler declines to specialise `subscribe` called recursively with
        /// ever larger subscriber types, and an unspecialised link leaves every element of the
        /// chain running generic code.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MapSubscriber(downstream: subscriber, transform: transform)
            upstream.attachSubscriber(inner)
        }
    }
}

/// The subscriber `Map` puts upstream: forwards the subscription and the completion, and
/// transforms each value.
///
/// A top-level type generic only over what flows through it, not nested in `Publishers.Map`: a
/// subscriber nested in its publisher carries the upstream's type, which grows at every stage of
/// a chain, and the optimiser stops specialising a function that calls itself with growing types
/// (a chain of maps calls `receive(_:)` of one `Map` subscriber from another). Generic over the
/// input and the downstream only, the types shrink along the chain and every stage specialises.
@usableFromInline
struct MapSubscriber<Input, Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let transform: (Input) -> Downstream.Input
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, transform: @escaping (Input) -> Downstream.Input) {
        self.downstream = downstream
        self.transform = transform
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(transform(input))
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { "Map" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided closure.
    ///
    /// Demand and completion pass through unchanged.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}

extension Publishers.Map {
    /// Fuses two consecutive maps into one `Map` whose transform applies both.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Upstream, T> {
        let first = self.transform
        return Publishers.Map(upstream: upstream) { transform(first($0)) }
    }
}

extension Publisher {
    /// Replaces `nil` elements in the stream with the provided element.
    ///
    /// As in Combine, this is a ``Publishers/Map`` whose transform is `{ $0 ?? output }`: demand
    /// and completion pass through unchanged.
    ///
    /// - Parameter output: The element to use when replacing `nil`.
    /// - Returns: A publisher that replaces `nil` elements from the upstream publisher with the
    ///   provided element.
    @inlinable
    public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
        Publishers.Map(upstream: self) { $0 ?? output }
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Replaces every `nil` element at once, returning a publisher of the array.
    ///
    /// As in Combine, the resulting publisher's elements keep the sequence's optional element type
    /// (`T?`), all of them non-`nil`; erase the publisher (`eraseToAnyPublisher()`) before
    /// `replaceNil(with:)` to get a publisher of `T`.
    @inlinable
    public func replaceNil<T>(with output: T) -> Publishers.Sequence<[Output], Failure> where Elements.Element == T? {
        Publishers.Sequence<[Output], Failure>(sequence: sequence.map { $0 ?? output })
    }
}
