extension Publishers {
    /// A publisher that republishes all non-`nil` results of calling a closure with each received
    /// element.
    ///
    /// `CompactMap` adds no subscription of its own. A `nil` result is replaced by asking the
    /// upstream for one more value (returning `.max(1)` from `receive`), so a subscriber with
    /// limited demand still receives every non-`nil` result.
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that receives values from the upstream publisher and returns optional values.
        public let transform: (Upstream.Output) -> Output?

        /// Creates a publisher that republishes all non-`nil` results of calling a closure with
        /// each received element.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber, wrapped so that only non-`nil` results reach it.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(CompactMapSubscriber(downstream: subscriber, transform: transform))
        }
    }
}

/// The subscriber `CompactMap` puts upstream: forwards non-`nil` results, and replaces the
/// demand a `nil` result used.
/// Top-level and generic over the input and the downstream only (see ``MapSubscriber``).
@usableFromInline
struct CompactMapSubscriber<Input, Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let transform: (Input) -> Downstream.Input?
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, transform: @escaping (Input) -> Downstream.Input?) {
        self.downstream = downstream
        self.transform = transform
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        if let output = transform(input) { return downstream.receive(output) }
        return .max(1)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { "CompactMap" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

extension Publisher {
    /// Calls a closure with each received element and publishes any returned optional that has a
    /// value.
    ///
    /// A `nil` result is replaced by requesting one more element from upstream, so downstream
    /// demand counts only the values it receives.
    ///
    /// - Parameter transform: A closure that receives a value and returns an optional value.
    /// - Returns: A publisher that republishes the non-`nil` results.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }
}

extension Publishers.CompactMap {
    /// Fuses two consecutive `compactMap`s into one `CompactMap`.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
    }

    /// Fuses a `map` after a `compactMap` into one `CompactMap`.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
    }
}

// MARK: Fused overloads

extension Just {
    /// Transforms the output at once: the result publishes the non-`nil` result, or nothing.
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(transform(output))
    }
}

extension Optional.Publisher {
    /// Transforms the value, if any, at once: the result publishes the non-`nil` result, or nothing.
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.flatMap(transform))
    }
}

extension Publishers.Sequence {
    /// Transforms every element at once, returning a publisher of the non-`nil` results.
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.compactMap(transform))
    }
}
