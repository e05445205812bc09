extension Publishers {
    /// A publisher that encodes elements received from an upstream publisher, using a given
    /// encoder.
    ///
    /// `Encode` has a subscription of its own (named "Encode"): demand passes straight through, and
    /// when the encoder throws it cancels the upstream and fails with the thrown error. An upstream
    /// failure is republished as `any Error`.
    public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher
    where Upstream.Output: Encodable {
        /// The kind of values published by this publisher: what the encoder produces.
        public typealias Output = Coder.Output

        /// The kind of errors this publisher might publish: an encoding error or the upstream's.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The encoder that encodes each element.
        @usableFromInline let encoder: Coder

        /// Creates a publisher that encodes elements received from an upstream publisher, using a
        /// given encoder.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - encoder: The encoder that encodes elements received from the upstream publisher.
        @inlinable
        public init(upstream: Upstream, encoder: Coder) {
            self.upstream = upstream
            self.encoder = encoder
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ElementProducer(step: Step(encoder: encoder), downstream: subscriber,
                                                         name: "Encode"))
        }
    }
}

extension Publishers.Encode {
    /// Encodes each value; an encoding error ends the stream.
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

        @usableFromInline let encoder: Coder

        @inlinable
        init(encoder: Coder) {
            self.encoder = encoder
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> ElementDecision<Coder.Output, any Error> {
            do {
                return .send(try encoder.encode(input))
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) -> ElementEnding<Coder.Output, any Error> {
            .complete(completion.mapError { $0 })
        }
    }
}

extension Publisher where Output: Encodable {
    /// Encodes the output from upstream using a specified encoder.
    ///
    /// Use it with `JSONEncoder` (or `PropertyListEncoder`) from the `Sluice` module to turn
    /// `Encodable` values into `Data`. If the encoder throws, the publisher cancels its upstream and
    /// fails with the thrown error. Demand passes through unchanged.
    ///
    /// - Parameter encoder: An encoder that implements the ``TopLevelEncoder`` protocol.
    /// - Returns: A publisher that encodes received elements using a specified encoder, and
    ///   publishes the resulting data.
    @inlinable
    public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
        Publishers.Encode(upstream: self, encoder: encoder)
    }
}
