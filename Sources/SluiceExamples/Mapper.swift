import Sluice

extension Publishers {
    /// A hand-written `map`: transforms every value from the upstream publisher with a closure.
    ///
    /// An operator is a publisher built on another one. `Mapper` does not need a subscription of
    /// its own: it subscribes a small subscriber (`MapperSubscriber`) to the upstream, which hands
    /// the upstream's subscription straight to the downstream — so demand and cancellation go
    /// directly upstream — and transforms each value on its way down. The demand the downstream
    /// returns from `receive(_:)` goes back up unchanged, and so does the completion.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher
    ///     .mapper { "#\($0)" }
    ///     .sink { print($0) }   // #1, #2, #3
    /// ```
    public struct Mapper<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure: mapping cannot fail.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are transformed.
        public let upstream: Upstream
        /// The transformation.
        public let transform: (Upstream.Output) -> Output

        /// Creates a publisher that transforms `upstream`'s values with `transform`.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Subscribes a `MapperSubscriber` wrapping `subscriber` to the upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(MapperSubscriber(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.Mapper {
    /// The subscriber `Mapper` puts between the upstream and the downstream. A value type: it
    /// holds no state of its own, so it needs no lock; its identity is a stored
    /// `CombineIdentifier`.
    struct MapperSubscriber<Downstream: Subscriber>: Subscriber, CustomStringConvertible
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let downstream: Downstream
        let transform: (Upstream.Output) -> Output
        let combineIdentifier = CombineIdentifier()

        /// Passes the upstream's subscription down: the downstream's requests and cancel go
        /// straight to the upstream.
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        /// Transforms the value and returns whatever demand the downstream adds.
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            downstream.receive(transform(input))
        }

        /// Passes the completion down.
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion)
        }

        var description: String { "Mapper" }
    }
}

extension Publisher {
    /// Transforms every value with `transform`, using the hand-written ``Publishers/Mapper``
    /// operator (it behaves as the built-in `map`).
    public func mapper<Result>(_ transform: @escaping (Output) -> Result) -> Publishers.Mapper<Self, Result> {
        Publishers.Mapper(upstream: self, transform: transform)
    }
}
