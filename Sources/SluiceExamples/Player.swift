import Dispatch
import Foundation

/// A stand-in for AVFoundation's `AVPlayer`: a playhead that moves, and periodic time observers.
///
/// AVFoundation does not exist on Linux, and real playback would make the examples depend on the
/// clock; so this player's time moves only when ``advance(by:)`` is called. Each observer added
/// with ``addPeriodicTimeObserver(forInterval:queue:using:)`` is called at every multiple of its
/// interval that the playhead passes, with that time.
///
/// The observer table and the time are guarded by a lock, so observers may be added and removed
/// from any thread; observers are called with the lock released. Advance the player from one
/// thread at a time, as playback would.
public final class Player: @unchecked Sendable {
    /// The token returned for an observer; pass it to ``removeTimeObserver(_:)``.
    private final class Token: Sendable {}

    private struct Observer {
        let token: Token
        let interval: TimeInterval
        let queue: DispatchQueue?
        let block: @Sendable (TimeInterval) -> Void
        var nextTick: Int            // the next multiple of `interval` to report
    }

    private let lock = NSLock()
    private var time: TimeInterval = 0
    private var observers: [Observer] = []

    /// Creates a player with its playhead at zero.
    public init() {}

    /// The playhead's position, in seconds.
    public var currentTime: TimeInterval {
        lock.withLock { time }
    }

    /// The number of time observers registered.
    public var timeObserverCount: Int {
        lock.withLock { observers.count }
    }

    /// Asks for `block` to be called every `interval` seconds of playback, with the playhead time.
    ///
    /// - Parameters:
    ///   - interval: The period, in seconds; must be positive.
    ///   - queue: Where to call `block`. `nil` calls it synchronously on the thread that advances
    ///     the player (AVFoundation would use the main queue), which keeps examples and tests
    ///     deterministic.
    ///   - block: Called with each time reached.
    /// - Returns: An opaque token for ``removeTimeObserver(_:)``.
    public func addPeriodicTimeObserver(
        forInterval interval: TimeInterval,
        queue: DispatchQueue?,
        using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> Any {
        precondition(interval > 0, "Player: a time observer's interval must be positive")
        let token = Token()
        lock.withLock {
            let passed = Int((time / interval).rounded(.down))
            observers.append(Observer(token: token, interval: interval, queue: queue, block: block, nextTick: passed + 1))
        }
        return token
    }

    /// Stops calling the observer the token identifies. Unknown tokens are ignored.
    public func removeTimeObserver(_ observer: Any) {
        guard let token = observer as? Token else { return }
        lock.withLock { observers.removeAll { $0.token === token } }
    }

    /// Plays `seconds` of media: moves the playhead and calls each observer, in time order, for
    /// every multiple of its interval passed. An observer removed meanwhile is not called again.
    public func advance(by seconds: TimeInterval) {
        let ticks: [(time: TimeInterval, token: Token, queue: DispatchQueue?, block: @Sendable (TimeInterval) -> Void)] =
            lock.withLock {
                time += seconds
                var ticks: [(time: TimeInterval, token: Token, queue: DispatchQueue?, block: @Sendable (TimeInterval) -> Void)] = []
                for index in observers.indices {
                    while true {
                        let tickTime = Double(observers[index].nextTick) * observers[index].interval
                        guard tickTime <= time + 1e-9 else { break }
                        let observer = observers[index]
                        ticks.append((tickTime, observer.token, observer.queue, observer.block))
                        observers[index].nextTick += 1
                    }
                }
                return ticks.sorted { $0.time < $1.time }
            }
        for tick in ticks {
            let stillObserving = lock.withLock { observers.contains { $0.token === tick.token } }
            guard stillObserving else { continue }
            if let queue = tick.queue {
                let block = tick.block, time = tick.time
                queue.async { block(time) }
            } else {
                tick.block(tick.time)
            }
        }
    }
}
