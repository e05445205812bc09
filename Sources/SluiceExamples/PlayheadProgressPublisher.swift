import Dispatch
import Foundation
import Sluice

extension Publishers {
    /// Publishes a ``Player``'s playhead time, in seconds, at a regular interval of playback.
    ///
    /// Nothing is observed until the subscriber requests values: the first request registers a
    /// periodic time observer with the player. Each tick is delivered only while the subscriber
    /// has outstanding demand (the subscription counts it in `requested`); ticks without demand
    /// are skipped. The publisher never completes; cancelling removes the time observer.
    ///
    /// ```swift
    /// let player = Player()
    /// let cancellable = player.playheadProgressPublisher(interval: 0.5)
    ///     .sink { print("playhead at", $0) }
    /// player.advance(by: 1)   // playhead at 0.5, playhead at 1.0
    /// ```
    public struct PlayheadProgressPublisher: Publisher {
        /// The playhead time, in seconds.
        public typealias Output = TimeInterval
        /// Observing a player cannot fail.
        public typealias Failure = Never

        /// The seconds of playback between two values.
        public let interval: TimeInterval
        /// The observed player.
        public let player: Player
        /// Where the player calls the observer; `nil` for the thread that advances it.
        public let queue: DispatchQueue?

        /// Creates a publisher of `player`'s playhead every `interval` seconds.
        public init(interval: TimeInterval = 0.25, player: Player, queue: DispatchQueue? = nil) {
            self.interval = interval
            self.player = player
            self.queue = queue
        }

        /// Hands the subscriber a subscription that begins observing on the first request.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == TimeInterval, S.Failure == Never {
            let subscription = PlayheadProgressSubscription(
                subscriber: subscriber, interval: interval, player: player, queue: queue)
            subscriber.receive(subscription: subscription)
        }
    }

    /// The subscription: the downstream, the outstanding demand (`requested`) and the player's
    /// observer token, behind a lock.
    private final class PlayheadProgressSubscription<S: Subscriber>: Subscription, PlayheadObserver,
        CustomStringConvertible, @unchecked Sendable
    where S.Input == TimeInterval, S.Failure == Never {
        private let lock = NSLock()
        private let player: Player
        private let interval: TimeInterval
        private let queue: DispatchQueue?
        private var subscriber: S?
        private var requested = Subscribers.Demand.none
        private var timeObserverToken: Any?
        private var started = false

        init(subscriber: S, interval: TimeInterval, player: Player, queue: DispatchQueue?) {
            self.subscriber = subscriber
            self.interval = interval
            self.player = player
            self.queue = queue
        }

        /// Adds to `requested`; the first request starts observing the player.
        func request(_ demand: Subscribers.Demand) {
            precondition(demand > .none, "PlayheadProgressPublisher: a subscriber must request at least one value")
            let start: Bool = lock.withLock {
                guard subscriber != nil else { return false }
                requested += demand
                guard !started else { return false }
                started = true
                return true
            }
            guard start else { return }
            // The observer reaches this subscription through a non-generic protocol, so the
            // `@Sendable` block captures no metadata of the (maybe non-Sendable) subscriber type.
            let token = player.addPeriodicTimeObserver(forInterval: interval, queue: queue) {
                [weak observer = self as any PlayheadObserver] time in
                observer?.playheadDidMove(to: time)
            }
            // Keep the token unless a cancel came in while registering; then undo at once.
            let keep: Bool = lock.withLock {
                guard subscriber != nil else { return false }
                timeObserverToken = token
                return true
            }
            if !keep { player.removeTimeObserver(token) }
        }

        /// A tick: deliver it if demand is outstanding, then add the demand the subscriber returns.
        func playheadDidMove(to time: TimeInterval) {
            let downstream: S? = lock.withLock {
                guard let subscriber, requested > .none else { return nil }
                requested -= 1
                return subscriber
            }
            guard let downstream else { return }
            let more = downstream.receive(time)
            lock.withLock {
                if subscriber != nil { requested += more }
            }
        }

        /// Removes the time observer and releases the subscriber (which retains this subscription:
        /// releasing it breaks the cycle). Idempotent.
        func cancel() {
            let token: Any? = lock.withLock {
                subscriber = nil
                requested = .none
                defer { timeObserverToken = nil }
                return timeObserverToken
            }
            if let token { player.removeTimeObserver(token) }
        }

        deinit {
            if let timeObserverToken { player.removeTimeObserver(timeObserverToken) }
        }

        var description: String { "PlayheadProgressPublisher" }
    }
}

/// What a ``Player``'s time observer calls.
private protocol PlayheadObserver: AnyObject, Sendable {
    func playheadDidMove(to time: TimeInterval)
}

extension Player {
    /// A publisher of this player's playhead every `interval` seconds of playback.
    public func playheadProgressPublisher(interval: TimeInterval = 0.25) -> Publishers.PlayheadProgressPublisher {
        Publishers.PlayheadProgressPublisher(interval: interval, player: self)
    }
}
