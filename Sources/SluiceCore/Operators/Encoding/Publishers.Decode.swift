extension Publishers {
    /// A publisher that decodes elements received from an upstream publisher, using a given
    /// decoder.
    ///
    /// `Decode` has a subscription of its own (named "Decode"): demand passes straight through, and
    /// when the decoder throws it cancels the upstream and fails with the thrown error. An upstream
    /// failure is republished as `any Error`.
    public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
    where Upstream.Output == Coder.Input {
        /// The kind of errors this publisher might publish: a decoding error or the upstream's.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The decoder that decodes each element.
        @usableFromInline let decoder: Coder

        /// Creates a publisher that decodes elements received from an upstream publisher, using a
        /// given decoder.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - decoder: The decoder that decodes elements received from the upstream publisher.
        @inlinable
        public init(upstream: Upstream, decoder: Coder) {
            self.upstream = upstream
            self.decoder = decoder
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(decoder: decoder), downstream: subscriber,
                                                         name: "Decode"))
        }
    }
}

extension Publishers.Decode {
    /// Decodes each value; a decoding error ends the stream.
    @usableFromInline
    struct Step: ElementStep {
        /// As in Combine: values and a completion before the subscription are still published.
        @inlinable static var earlyEvents: EarlyEventHandling { .forwardAll }

        /// As in Combine: the downstream, whether the stream has ended, and the upstream subscription.
        @inlinable
        func mirrorChildren(downstream: Any, upstream: UpstreamStatus) -> [Mirror.Child] {
            [(label: "downstream", value: downstream), (label: "finished", value: upstream.isTerminal),
             (label: "upstreamSubscription", value: upstream.subscription as Any)]
        }

        @usableFromInline let decoder: Coder

        @inlinable
        init(decoder: Coder) {
            self.decoder = decoder
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Output, any Error> {
            do {
                return .send(try decoder.decode(Output.self, from: input))
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) -> ElementEnding<Output, any Error> {
            .complete(completion.mapError { $0 })
        }
    }
}

extension Publisher {
    /// Decodes the output from the upstream using a specified decoder.
    ///
    /// Use it with `JSONDecoder` (or `PropertyListDecoder`) from the `Sluice` module to turn `Data`
    /// into `Decodable` values. If the decoder throws, the publisher cancels its upstream and fails
    /// with the thrown error. Demand passes through unchanged.
    ///
    /// - Parameters:
    ///   - type: The encoded data to decode into a struct that conforms to the `Decodable` protocol.
    ///   - decoder: A decoder that implements the ``TopLevelDecoder`` protocol.
    /// - Returns: A publisher that decodes a given type using a specified decoder and publishes the
    ///   result.
    @inlinable
    public func decode<Item: Decodable, Coder: TopLevelDecoder>(type: Item.Type, decoder: Coder)
        -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input {
        Publishers.Decode(upstream: self, decoder: decoder)
    }
}
