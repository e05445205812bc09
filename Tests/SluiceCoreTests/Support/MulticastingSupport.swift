import SluiceCore

/// A connection that counts its cancellations (only the first counts) and cancels `base`.
final class CountedConnection: Cancellable, @unchecked Sendable {
    private let base: any Cancellable
    private let onFirstCancel: () -> Void
    private let cancelled = Shared(false)
    init(_ base: any Cancellable, onFirstCancel: @escaping () -> Void) {
        self.base = base
        self.onFirstCancel = onFirstCancel
    }
    func cancel() {
        let first = cancelled.mutate { flag -> Bool in
            defer { flag = true }
            return !flag
        }
        guard first else { return }
        onFirstCancel()
        base.cancel()
    }
}

/// A connectable publisher for testing `autoconnect()`: subscribers go to `base`; `connect()`
/// runs `onConnect` and is counted, and so is each connection's cancellation. Tracks how many
/// connections are live at once.
final class ConnectCounter<Base: Publisher>: ConnectablePublisher, @unchecked Sendable {
    typealias Output = Base.Output
    typealias Failure = Base.Failure
    let base: Base
    private let onConnect: () -> any Cancellable
    private let counts = Shared<(connects: Int, disconnects: Int, live: Int, maxLive: Int)>((0, 0, 0, 0))
    var connects: Int { counts.value.connects }
    var disconnects: Int { counts.value.disconnects }
    /// The most connections live at the same time.
    var maxLive: Int { counts.value.maxLive }

    init(_ base: Base, onConnect: @escaping () -> any Cancellable) {
        self.base = base
        self.onConnect = onConnect
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        base.receive(subscriber: subscriber)
    }

    func connect() -> any Cancellable {
        counts.mutate {
            $0.connects += 1
            $0.live += 1
            $0.maxLive = Swift.max($0.maxLive, $0.live)
        }
        return CountedConnection(onConnect()) { [counts] in
            counts.mutate {
                $0.disconnects += 1
                $0.live -= 1
            }
        }
    }
}

extension ConnectCounter {
    /// Over a `ManualPublisher`: connecting does nothing but count.
    convenience init<Output, Failure>(manual: ManualPublisher<Output, Failure>)
    where Base == ManualPublisher<Output, Failure> {
        self.init(manual) { CountedConnection(Subscriptions.empty) {} }
    }
}

extension ConnectCounter {
    /// Over a `MakeConnectable`: connecting connects it.
    convenience init<Upstream>(connectable: Publishers.MakeConnectable<Upstream>)
    where Base == Publishers.MakeConnectable<Upstream> {
        self.init(connectable) { connectable.connect() }
    }
}

/// A publisher whose every subscription is a fresh object, watched through weak references (to
/// check who keeps it), and which counts subscriptions made and cancelled.
final class TrackedPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    final class Subscription: SluiceCore.Subscription, @unchecked Sendable {
        private let onCancel: () -> Void
        init(onCancel: @escaping () -> Void) { self.onCancel = onCancel }
        func request(_ demand: Subscribers.Demand) {}
        func cancel() { onCancel() }
    }

    private struct Weak {
        weak var subscription: Subscription?
    }

    private let state = Shared<(subscriptions: [Weak], cancels: Int, live: Int, maxLive: Int)>(([], 0, 0, 0))
    /// How many subscribers attached.
    var subscriptionCount: Int { state.value.subscriptions.count }
    /// How many `cancel()` calls the subscriptions received.
    var cancelCount: Int { state.value.cancels }
    /// The most subscriptions live (made and not yet cancelled) at once.
    var maxLive: Int { state.value.maxLive }
    /// How many subscriptions are still alive (referenced by someone).
    var aliveCount: Int { state.value.subscriptions.filter { $0.subscription != nil }.count }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = Subscription { [state] in
            state.mutate {
                $0.cancels += 1
                $0.live -= 1
            }
        }
        state.mutate {
            $0.subscriptions.append(Weak(subscription: subscription))
            $0.live += 1
            $0.maxLive = Swift.max($0.maxLive, $0.live)
        }
        subscriber.receive(subscription: subscription)
    }
}

/// Counts the calls of a `createSubject` closure and the subscriptions made through a `Deferred`.
final class CallCounter: @unchecked Sendable {
    private let count = Shared(0)
    var value: Int { count.value }
    func increment() { count.mutate { $0 += 1 } }
}
