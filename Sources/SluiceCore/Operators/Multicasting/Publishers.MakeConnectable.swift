extension Publishers {
    /// A publisher that provides explicit connectability to another publisher.
    ///
    /// `Publishers.MakeConnectable` is a ``ConnectablePublisher``, which allows you to perform
    /// configuration before publishing any elements. Call ``connect()`` on this publisher when you
    /// want to attach to its upstream publisher and start producing elements.
    ///
    /// Subscribers attach to a `PassthroughSubject` (through subscriptions named "Multicast", each
    /// with its own demand; a subscriber without demand when a value arrives does not receive it);
    /// `connect()` subscribes that subject to the upstream, asking for `.unlimited`, and returns an
    /// ``AnyCancellable``: releasing it disconnects, as in Apple's Combine. Copies of a
    /// `MakeConnectable` share the subject.
    ///
    /// Use the ``Publisher/makeConnectable()`` operator to wrap an upstream publisher with an
    /// instance of this publisher.
    public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The multicast through a passthrough subject that does the work.
        @usableFromInline
        let inner: Multicast<Upstream, PassthroughSubject<Upstream.Output, Upstream.Failure>>

        /// Creates a connectable publisher, attached to the provided upstream publisher.
        ///
        /// - Parameter upstream: The publisher from which to receive elements.
        public init(upstream: Upstream) {
            inner = Multicast(upstream: upstream) { PassthroughSubject() }
        }

        /// Attaches the subscriber; values flow once the publisher is connected.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.receive(subscriber: subscriber)
        }

        /// Connects to the upstream publisher, allowing it to produce elements, and returns an
        /// instance with which to cancel publishing.
        ///
        /// The instance is an ``AnyCancellable``: cancelling or releasing it disconnects, so keep it
        /// for as long as the publisher is to stay connected. Each call subscribes to the upstream
        /// again, with a connection of its own.
        ///
        /// - Returns: A ``Cancellable`` instance that you use to cancel publishing.
        public func connect() -> any Cancellable {
            inner.connect()
        }
    }
}

extension Publisher where Failure == Never {
    /// Creates a connectable wrapper around the publisher.
    ///
    /// The returned publisher produces no elements until you call `connect()` on it: attach every
    /// subscriber first, so that none misses the first elements.
    ///
    /// ```swift
    /// let connectable = (1...3).publisher.makeConnectable()
    /// cancellable1 = connectable.sink { print("Stream 1 received: \($0)") }
    /// cancellable2 = connectable.sink { print("Stream 2 received: \($0)") }
    /// connection = connectable.connect()
    /// ```
    ///
    /// - Returns: A ``ConnectablePublisher`` wrapping this publisher.
    @inlinable
    public func makeConnectable() -> Publishers.MakeConnectable<Self> {
        Publishers.MakeConnectable(upstream: self)
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Publishers.MakeConnectable: Sendable {}
#endif
