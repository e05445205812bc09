extension Publishers {
    /// A publisher that automatically connects to an upstream connectable publisher.
    ///
    /// This publisher calls ``ConnectablePublisher/connect()`` on the upstream
    /// ``ConnectablePublisher`` when first attached to by a subscriber — after attaching that
    /// subscriber, so that it sees the first values.
    ///
    /// It counts its subscribers and disconnects (cancels the connection) when they have all
    /// cancelled; the next subscriber connects again. A subscriber that receives a completion
    /// keeps its place in the count: once the upstream has completed, the spent connection stays
    /// in place and later subscribers attach to the upstream as it is, without a new connection (a
    /// completed ``Multicast`` hands them the completion at once).
    ///
    /// Demand passes through unchanged: each subscriber's requests go to its own upstream
    /// subscription. `description` of the subscription a subscriber receives is that of the
    /// upstream subscription it wraps ("Multicast" under `share()`).
    ///
    /// Thread-safe: concurrent subscribers and cancellations connect and disconnect one at a time,
    /// never holding a lock while calling `connect()` or cancelling.
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher, @unchecked Sendable {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @usableFromInline let lock = Lock()
        /// Guarded by `lock`.
        @usableFromInline var state = AutoconnectState()

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        ///
        /// - Parameter upstream: The publisher from which this publisher receives elements.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber to the upstream, then connects the upstream if this is the
        /// first subscriber (or the first since every earlier one cancelled).
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            lock.withLock { state.subscriberArrived() }
            upstream.receive(subscriber: RelaySubscription(downstream: subscriber, name: nil, owner: self))
            perform(lock.withLock { state.next() })
        }

        /// Connects or disconnects as the state decides, outside the lock, until nothing is left
        /// to do. Only one thread at a time gets an action (the state is busy meanwhile).
        @usableFromInline
        func perform(_ first: AutoconnectState.Action) {
            var action = first
            while true {
                switch action {
                case .none:
                    return
                case .connect:
                    let connection = upstream.connect()
                    action = lock.withLock { state.connected(connection) }
                case .disconnect(let connection):
                    connection.cancel()
                    action = lock.withLock { state.disconnected() }
                }
            }
        }
    }
}

/// The connection state of an ``Publishers/Autoconnect``: how many subscribers count, the live
/// connection, and whether a thread is connecting or disconnecting right now. Each transition
/// returns what the caller must do once the lock is released; the caller reports back with
/// ``connected(_:)`` or ``disconnected()``, which may return the next thing to do.
@usableFromInline
struct AutoconnectState {
    /// What the caller does outside the lock.
    @usableFromInline
    enum Action {
        /// Nothing.
        case none
        /// Call `connect()` on the upstream, then report with ``AutoconnectState/connected(_:)``.
        case connect
        /// Cancel this connection, then report with ``AutoconnectState/disconnected()``.
        case disconnect(any Cancellable)
    }

    /// Subscribers attached and not cancelled (a completed one still counts).
    @usableFromInline var subscribers = 0
    /// The live connection.
    @usableFromInline var connection: (any Cancellable)?
    /// A thread is connecting or disconnecting; it will look again when done.
    @usableFromInline var isBusy = false

    @inlinable
    init() {}

    /// Counts a new subscriber. Call ``next()`` once it is attached upstream.
    @inlinable
    mutating func subscriberArrived() {
        subscribers += 1
    }

    /// A subscriber cancelled.
    @inlinable
    mutating func subscriberLeft() -> Action {
        subscribers -= 1
        return next()
    }

    /// What to do now: connect if there are subscribers and no connection, disconnect if there
    /// is a connection and no subscribers — unless another thread is already at it.
    @inlinable
    mutating func next() -> Action {
        guard !isBusy else { return .none }
        if subscribers > 0, connection == nil {
            isBusy = true
            return .connect
        }
        if subscribers == 0, let connection {
            isBusy = true
            self.connection = nil
            return .disconnect(connection)
        }
        return .none
    }

    /// The upstream returned `connection` from `connect()`.
    @inlinable
    mutating func connected(_ connection: any Cancellable) -> Action {
        self.connection = connection
        isBusy = false
        return next()
    }

    /// The connection given by a ``Action/disconnect(_:)`` has been cancelled.
    @inlinable
    mutating func disconnected() -> Action {
        isBusy = false
        return next()
    }
}

extension Publishers.Autoconnect: RelayOwner {
    /// A subscriber cancelled: disconnects if it was the last one.
    @usableFromInline
    func relayCancelled() {
        perform(lock.withLock { state.subscriberLeft() })
    }
}

extension ConnectablePublisher {
    /// Automates the process of connecting or disconnecting from this connectable publisher.
    ///
    /// Use `autoconnect()` to simplify working with ``ConnectablePublisher`` instances, such as a
    /// timer publisher: the returned publisher calls ``connect()`` when the first subscriber
    /// attaches, and cancels the connection when every subscriber has cancelled.
    ///
    /// ```swift
    /// cancellable = connectable
    ///     .autoconnect()
    ///     .sink { print($0) }
    /// ```
    ///
    /// - Returns: A publisher which automatically connects to its upstream connectable publisher.
    @inlinable
    public func autoconnect() -> Publishers.Autoconnect<Self> {
        Publishers.Autoconnect(upstream: self)
    }
}
