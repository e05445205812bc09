extension Publishers {
    /// A publisher that automatically connects to an upstream connectable publisher.
    ///
    /// This publisher calls ``ConnectablePublisher/connect()`` on the upstream
    /// ``ConnectablePublisher`` when first attached to by a subscriber — after attaching that
    /// subscriber, so that it sees the first values — and cancels the connection when every
    /// subscriber has cancelled; the next subscriber connects again.
    ///
    /// As in Apple's Combine:
    /// - A subscriber counts from its arrival until it cancels, whether or not it has received a
    ///   completion: after the upstream completed, later subscribers attach to the upstream as it
    ///   is, without a new connection (a completed ``Multicast`` hands them the completion at once),
    ///   until every subscriber has cancelled.
    /// - A subscriber that arrives re-entrantly while the first connection is being made (from
    ///   inside the first subscriber's `receive(subscription:)`) connects too; the connection made
    ///   last is the one kept, counting one subscriber, and the earlier one is released without
    ///   being cancelled. (A subscriber arriving from another thread meanwhile is counted for the
    ///   connection under way instead.)
    /// - Each subscriber is attached to the upstream through a subscriber described "Autoconnect";
    ///   the subscription it receives passes requests and cancels to the upstream subscription
    ///   unchanged and shows that subscription's description and `combineIdentifier`. Values and
    ///   demand pass through unchanged.
    ///
    /// Thread-safe: a subscriber arriving from another thread while a connection is being made or
    /// cancelled waits for it (it is counted for the connection under way, or connects once the
    /// cancel is done), so that at most one connection is live at a time, the re-entrant case above
    /// aside. The state is kept behind a lock, never held while calling `connect()`, subscribing or
    /// cancelling.
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @usableFromInline let lock = Lock()
        /// Guarded by `lock`.
        @exclusivity(unchecked) @usableFromInline var state = AutoconnectState()

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        ///
        /// - Parameter upstream: The publisher from which this publisher receives elements.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber to the upstream, then connects the upstream if it is not
        /// connected yet.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = AutoconnectSubscriber(parent: self, downstream: subscriber)
            let thread = currentThreadIdentity()
            let connects = lock.withLock { state.subscriberArriving(on: thread) }
            upstream.attachSubscriber(inner)
            if connects { perform(.connect, on: thread) }
        }

        /// One of the subscribers cancelled: disconnects if it was the last one counted.
        @usableFromInline
        func subscriberCancelled() {
            let thread = currentThreadIdentity()
            perform(lock.withLock { state.subscriberLeft() }, on: thread)
        }

        /// Connects or disconnects as the state decides, outside the lock, until nothing is left to
        /// do. Inlinable, so that a first subscriber's connect runs specialised for the upstream: a
        /// multicast's connection then carries each value through specialised code.
        @inlinable
        func perform(_ first: AutoconnectState.Action, on thread: UInt) {
            var action = first
            while true {
                switch action {
                case .none:
                    return
                case .connect:
                    let connection = upstream.connect()
                    let (replaced, next) = lock.withLock { state.connected(connection) }
                    _ = replaced  // released here, outside the lock (not cancelled, as Apple's)
                    action = next
                case .disconnect(let connection):
                    connection.cancel()
                    action = lock.withLock { state.disconnected(on: thread) }
                }
            }
        }
    }
}

/// The connection state of an ``Publishers/Autoconnect``: the live connection and how many
/// subscribers count for it. Each transition returns what the caller must do once the lock is
/// released; the caller reports back with ``connected(_:)`` or ``disconnected(on:)``.
///
/// A subscriber arriving while nothing is connected connects. While a thread is connecting, a
/// subscriber arriving on that same thread (re-entrantly, from inside the first one's
/// `receive(subscription:)` or the upstream's `connect()`) is treated as Apple's Combine treats it:
/// it connects too if nothing is connected yet, and the connection made last replaces the other,
/// counting one subscriber. A subscriber arriving on another thread while a connection is being
/// made or cancelled waits for it: it is counted for the connection under way, or connects once
/// the cancel is done — so that at most one connection is live at a time.
@usableFromInline
struct AutoconnectState {
    /// What the caller does outside the lock.
    @usableFromInline
    enum Action {
        /// Nothing.
        case none
        /// Call `connect()` on the upstream, then report with ``AutoconnectState/connected(_:)``.
        case connect
        /// Cancel this connection, then report with ``AutoconnectState/disconnected(on:)``.
        case disconnect(any Cancellable)
    }

    /// The live connection.
    @usableFromInline var connection: (any Cancellable)?
    /// Subscribers counted for `connection` (a completed one still counts until it cancels).
    @usableFromInline var subscribers = 0
    /// The thread connecting (`currentThreadIdentity()`), and how many of its `connect()`
    /// calls are under way (more than one when re-entrant).
    @usableFromInline var connectingThread: UInt = 0
    @usableFromInline var connecting = 0
    /// A connection is being cancelled.
    @usableFromInline var disconnecting = false
    /// Subscribers waiting for the connection under way (or to be made once the cancel is done),
    /// the one that makes it included.
    @usableFromInline var waiting = 0
    /// Waiting subscribers that cancelled meanwhile.
    @usableFromInline var leftWhileWaiting = 0

    @inlinable
    init() {}

    /// A subscriber arrives on `thread`. Returns `true` when the caller must connect once the
    /// subscriber is attached (with ``Action/connect``).
    @inlinable
    mutating func subscriberArriving(on thread: UInt) -> Bool {
        if disconnecting || (connecting > 0 && thread != connectingThread) {
            waiting += 1
            return false
        }
        if connection != nil {
            subscribers += 1
            return false
        }
        if connecting == 0 {
            waiting += 1
        }
        connectingThread = thread
        connecting += 1
        return true
    }

    /// The upstream returned `connection` from `connect()`: it becomes the live connection.
    /// Returns the connection it replaces (to release, not cancel) and what to do next: cancel
    /// `connection` at once when every subscriber waiting for it has already cancelled.
    @inlinable
    mutating func connected(_ connection: any Cancellable) -> (replaced: (any Cancellable)?, next: Action) {
        connecting -= 1
        let replaced = self.connection
        guard connecting == 0 else {
            // A re-entrant connection, inside the outer one: as Apple's, it counts its subscriber.
            self.connection = connection
            subscribers = 1
            return (replaced, .none)
        }
        connectingThread = 0
        let count = waiting - leftWhileWaiting
        waiting = 0
        leftWhileWaiting = 0
        guard count > 0 else {
            self.connection = nil
            subscribers = 0
            disconnecting = true
            return (replaced, .disconnect(connection))
        }
        self.connection = connection
        subscribers = count
        return (replaced, .none)
    }

    /// A subscriber cancelled. Returns ``Action/disconnect(_:)`` when it was the last one counted.
    @inlinable
    mutating func subscriberLeft() -> Action {
        guard let connection else {
            if connecting > 0 || disconnecting { leftWhileWaiting += 1 }
            return .none
        }
        subscribers -= 1
        guard subscribers <= 0 else { return .none }
        self.connection = nil
        subscribers = 0
        disconnecting = true
        return .disconnect(connection)
    }

    /// The connection given by a ``Action/disconnect(_:)`` has been cancelled, on `thread`.
    /// Returns ``Action/connect`` when subscribers arrived meanwhile and still wait.
    @inlinable
    mutating func disconnected(on thread: UInt) -> Action {
        disconnecting = false
        guard waiting - leftWhileWaiting > 0 else {
            waiting = 0
            leftWhileWaiting = 0
            return .none
        }
        connectingThread = thread
        connecting = 1
        return .connect
    }
}

/// The subscriber an ``Publishers/Autoconnect`` attaches to its upstream for each of its
/// subscribers ("Autoconnect"): it passes events on unchanged (a value or a completion that arrives
/// before the subscription too, as Apple's Combine does), and hands its subscriber an
/// ``AutoconnectSubscription`` over the upstream subscription.
///
/// It lets go of its subscriber on a completion or a cancel, and of the autoconnect on the first
/// cancel (which it tells, once).
@usableFromInline
final class AutoconnectSubscriber<Upstream: ConnectablePublisher, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline typealias Input = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure

    @usableFromInline let lock = Lock()
    // Guarded by `lock`, which makes their exclusivity explicit: they skip the runtime checks.
    @exclusivity(unchecked) @usableFromInline var parent: Publishers.Autoconnect<Upstream>?
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    @exclusivity(unchecked) @usableFromInline var subscribed = false

    @inlinable
    init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let target = lock.withLock { () -> Downstream? in
            guard !subscribed, let downstream else { return nil }
            subscribed = true
            return downstream
        }
        guard let target else { return subscription.cancel() }
        target.receive(subscription: AutoconnectSubscription(upstream: subscription, subscriber: self))
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        lock.withLock { downstream }?.receive(input) ?? .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        let target = lock.withLock { () -> Downstream? in
            defer { downstream = nil }
            return downstream
        }
        target?.receive(completion: completion)
    }

    /// The subscriber cancelled (the upstream subscription is cancelled already): lets go of it
    /// and, the first time, tells the autoconnect.
    @usableFromInline
    func cancelled() {
        let (parent, released) = lock.withLock { () -> (Publishers.Autoconnect<Upstream>?, Downstream?) in
            defer {
                self.parent = nil
                downstream = nil
            }
            return (self.parent, downstream)
        }
        _ = released  // released here, outside the lock
        parent?.subscriberCancelled()
    }

    @usableFromInline var description: String { "Autoconnect" }
    @usableFromInline var customMirror: Mirror {
        let (parent, downstream) = lock.withLock { (self.parent, self.downstream) }
        // Shown unwrapped while held, as Apple's are; `nil` once let go of.
        let shownParent: Any = parent.map { $0 as Any } ?? parent as Any
        let shownDownstream: Any = downstream.map { $0 as Any } ?? downstream as Any
        return Mirror(self, children: ["parent": shownParent, "downstream": shownDownstream])
    }
    @usableFromInline var playgroundDescription: Any { description }
}

/// The subscription an ``Publishers/Autoconnect``'s subscriber receives: the upstream subscription,
/// seen through a value that also tells the autoconnect when it is cancelled. Requests and every
/// cancel go to the upstream subscription unchanged; its description, playground description and
/// `combineIdentifier` are the upstream subscription's (as Apple's Combine shows them).
@usableFromInline
struct AutoconnectSubscription<Upstream: ConnectablePublisher, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline let upstream: any Subscription
    @usableFromInline let subscriber: AutoconnectSubscriber<Upstream, Downstream>

    @inlinable
    init(upstream: any Subscription, subscriber: AutoconnectSubscriber<Upstream, Downstream>) {
        self.upstream = upstream
        self.subscriber = subscriber
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        upstream.request(demand)
    }

    @inlinable
    func cancel() {
        upstream.cancel()
        subscriber.cancelled()
    }

    @usableFromInline var combineIdentifier: CombineIdentifier { upstream.combineIdentifier }
    @usableFromInline var description: String { String(describing: upstream) }
    @usableFromInline var playgroundDescription: Any {
        (upstream as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription ?? description
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

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Publishers.Autoconnect: @unchecked Sendable {}
#endif
