extension Publishers {
    /// A publisher that shares the output of an upstream publisher with multiple subscribers.
    ///
    /// This publisher type supports multiple subscribers, all of whom receive unchanged elements
    /// and completion states from the upstream publisher.
    ///
    /// `Share` is effectively a combination of the ``Multicast`` and ``PassthroughSubject``
    /// publishers, with an implicit ``ConnectablePublisher/autoconnect()``:
    /// - The first subscriber is attached, then the upstream is subscribed (once), so it sees the
    ///   first values; later subscribers see the values sent after they attach.
    /// - Each subscriber has its own demand, served by the subject: a subscriber without demand
    ///   when a value arrives does not receive it. The upstream is asked for `.unlimited`.
    /// - When the upstream completes, every subscriber receives the completion, and so does any
    ///   later subscriber, at once; the upstream is not subscribed again as long as one of the
    ///   subscribers has not cancelled (a subscriber counts until it cancels, completed or not, as
    ///   in Apple's Combine).
    /// - When every subscriber has cancelled, the upstream subscription is cancelled; a later
    ///   subscriber subscribes to the upstream anew (through the same subject).
    ///
    /// Be aware that `Share` is a class rather than a structure like most other publishers. Use
    /// this type when you need a publisher instance that uses reference semantics. Two shares are
    /// equal when they are the same instance.
    public final class Share<Upstream: Publisher>: Publisher, Equatable {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The multicast through a passthrough subject, connected automatically.
        @usableFromInline
        let inner: Autoconnect<Multicast<Upstream, PassthroughSubject<Upstream.Output, Upstream.Failure>>>

        /// Creates a publisher that shares the output of an upstream publisher with multiple
        /// subscribers.
        ///
        /// - Parameter upstream: The publisher from which this publisher receives elements.
        public init(upstream: Upstream) {
            self.upstream = upstream
            inner = Multicast(upstream: upstream) { PassthroughSubject() }.autoconnect()
        }

        /// Attaches the subscriber (its subscription is named "Multicast"), connecting to the
        /// upstream if it is the first.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.receive(subscriber: subscriber)
        }

        /// Returns a Boolean value that indicates whether two publishers are equivalent: whether
        /// they are the same instance.
        ///
        /// - Parameters:
        ///   - lhs: A `Share` publisher to compare for equality.
        ///   - rhs: Another `Share` publisher to compare for equality.
        /// - Returns: `true` if the publishers are the same instance; otherwise `false`.
        public static func == (lhs: Share, rhs: Share) -> Bool {
            lhs === rhs
        }
    }
}

extension Publisher {
    /// Shares the output of an upstream publisher with multiple subscribers.
    ///
    /// The publisher returned by this operator supports multiple subscribers, all of whom receive
    /// unchanged elements and completion states from the upstream publisher. It subscribes to the
    /// upstream when the first subscriber attaches; subscribers that attach later receive only the
    /// values sent after they attach (and, after the upstream completed, just the completion).
    /// When every subscriber has cancelled, it cancels the upstream subscription.
    ///
    /// ```swift
    /// let pub = (1...3).publisher
    ///     .delay(for: 1, scheduler: DispatchQueue.main)
    ///     .map { _ in Int.random(in: 0...100) }
    ///     .share()
    /// cancellable1 = pub.sink { print("Stream 1 received: \($0)") }
    /// cancellable2 = pub.sink { print("Stream 2 received: \($0)") }
    /// ```
    ///
    /// `Publishers.Share` is a class rather than a structure like most other publishers: this
    /// operator creates a publisher instance that uses reference semantics.
    ///
    /// - Returns: A class instance that shares elements received from its upstream to multiple
    ///   subscribers.
    @inlinable
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Publishers.Share: @unchecked Sendable {}
#endif
