extension Publishers {
    /// A publisher that uses a subject to deliver elements to multiple subscribers.
    ///
    /// Use a multicast publisher when you have multiple downstream subscribers, but you want
    /// upstream publishers to only process one ``Subscriber/receive(_:)`` call per event.
    ///
    /// `Multicast` is a ``ConnectablePublisher``: subscribers attach to the subject (made by
    /// ``createSubject`` once, when the first subscriber attaches or at the first ``connect()``,
    /// whichever comes first), and nothing flows until ``connect()`` subscribes that subject to
    /// ``upstream``. Each subscriber receives a subscription of its own (named "Multicast"), with
    /// its own demand, served by the subject: a `PassthroughSubject` drops a value for a subscriber
    /// that has no demand for it, as it always does. The subject itself requests `.unlimited` from
    /// the upstream. ``connect()`` returns an ``AnyCancellable``: the multicast stays connected for
    /// as long as that connection is kept (releasing it disconnects, as in Apple's Combine).
    ///
    /// Thread-safe: concurrent subscribers and `connect()` calls make exactly one subject, and each
    /// `connect()` exactly one upstream subscription.
    public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher
    where Upstream.Failure == SubjectType.Failure, Upstream.Output == SubjectType.Output {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that returns the subject that delivers elements to subscribers.
        ///
        /// Called once, when the first subscriber attaches or at the first ``connect()``; every
        /// subscriber then shares that subject.
        public let createSubject: () -> SubjectType

        /// Guards `subject`; never held while calling out.
        let lock = Lock()
        /// Serialises the one call of `createSubject` (like a `lazy` initialiser, it is held
        /// while the closure runs, so that concurrent first subscribers share one subject).
        let creationLock = Lock()
        /// The subject, once made. Guarded by `lock`.
        var subject: SubjectType?

        /// Creates a multicast publisher that applies a closure to create a subject that delivers
        /// elements to subscribers.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - createSubject: A closure that returns the ``Subject`` that delivers elements to
        ///     subscribers; called once, lazily.
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
        }

        /// Attaches the subscriber to the subject, through a subscription of its own named
        /// "Multicast" (which keeps the subject alive until it is cancelled or completes). Values
        /// flow once the multicast is connected.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subject = sharedSubject()
            subject.receive(subscriber: RelaySubscription(downstream: subscriber, name: "Multicast", keepAlive: subject))
        }

        /// Subscribes the subject to the upstream publisher, allowing it to produce elements, and
        /// returns the connection.
        ///
        /// As in Apple's Combine, the connection is an ``AnyCancellable``: cancelling it, or
        /// releasing it, cancels the upstream subscription (so keep it for as long as the multicast
        /// is to stay connected). The subscribers stay attached to the subject, and a later
        /// `connect()` subscribes the subject again. Every call subscribes the subject to the
        /// upstream again, even while an earlier connection is in place: each returns its own
        /// connection. The connection does not keep the subject alive.
        ///
        /// - Returns: A ``Cancellable`` that disconnects the subject from the upstream.
        @inlinable
        public func connect() -> any Cancellable {
            let bridge = SubjectSubscriber(weakly: sharedSubject())
            upstream.attachSubscriber(bridge)
            return AnyCancellable(bridge)
        }

        /// The subject, made on first use.
        @usableFromInline
        func sharedSubject() -> SubjectType {
            if let subject = lock.withLock({ subject }) { return subject }
            return creationLock.withLock {
                if let subject = lock.withLock({ subject }) { return subject }
                let created = createSubject()
                lock.withLock { subject = created }
                return created
            }
        }
    }
}

extension Publisher {
    /// Applies a closure to create a subject that delivers elements to subscribers.
    ///
    /// Use a multicast publisher when you have multiple downstream subscribers, but you want
    /// upstream publishers to only process one `receive(_:)` call per event. This is useful when
    /// upstream publishers are doing expensive work you don't want to duplicate, like performing
    /// network requests.
    ///
    /// The closure runs once, when the first subscriber attaches or at the first `connect()`; all
    /// subscribers share the subject it returns. Because the multicast publisher is a
    /// ``ConnectablePublisher``, publishing only begins after a call to `connect()`; keep the
    /// connection it returns, as releasing it disconnects.
    ///
    /// ```swift
    /// let pub = ["First", "Second", "Third"].publisher
    ///     .map { ($0, Int.random(in: 0...100)) }
    ///     .multicast { PassthroughSubject<(String, Int), Never>() }
    /// cancellable1 = pub.sink { print("Stream 1 received: \($0)") }
    /// cancellable2 = pub.sink { print("Stream 2 received: \($0)") }
    /// connection = pub.connect()
    /// ```
    ///
    /// - Parameter createSubject: A closure to create the ``Subject`` that delivers elements to the
    ///   subscribers.
    /// - Returns: A ``Publishers/Multicast`` publisher that uses the subject to deliver elements.
    @inlinable
    public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self, createSubject: createSubject)
    }

    /// Provides a subject to deliver elements to multiple subscribers.
    ///
    /// Use a multicast publisher when you have multiple downstream subscribers, but you want
    /// upstream publishers to only process one `receive(_:)` call per event. In contrast with
    /// ``multicast(_:)``, this method shares the provided subject among all the downstream
    /// subscribers. Publishing only begins after a call to `connect()`.
    ///
    /// - Parameter subject: A subject to deliver elements to downstream subscribers.
    /// - Returns: A ``Publishers/Multicast`` publisher that uses the subject to deliver elements.
    @inlinable
    public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self) { subject }
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Publishers.Multicast: @unchecked Sendable {}
#endif
