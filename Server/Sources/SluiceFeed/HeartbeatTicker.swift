#if Server
import NIOConcurrencyHelpers
import NIOCore

/// One repeating timer per event loop and heartbeat interval for every stream that has that
/// heartbeat: at each tick, each stream that wrote nothing since the previous tick is told a
/// heartbeat is due (``ClientOutlet``). 10,000 idle clients cost one timer, not 10,000.
///
/// A stream joins when it begins and leaves when it ends; the timer starts with the first stream
/// and stops with the last. Joining counts as a write, so a stream's first heartbeat comes after
/// one to two intervals of silence, as every later one.
final class HeartbeatTicker: @unchecked Sendable {
    private struct Key: Hashable {
        let loop: ObjectIdentifier
        let interval: Int64
    }

    /// The running tickers and their streams. One lock for all: it is taken when a stream begins
    /// or ends and once per tick, never per event.
    private static let running = NIOLockedValueBox([Key: HeartbeatTicker]())

    /// Guarded by ``running``'s lock.
    private var members: [ObjectIdentifier: ClientOutlet] = [:]
    /// Guarded by ``running``'s lock.
    private var task: RepeatedTask?

    /// Makes `outlet`'s heartbeat due every `interval` of silence, on `loop`'s ticker.
    static func join(_ outlet: ClientOutlet, loop: any EventLoop, interval: TimeAmount) {
        let key = Key(loop: ObjectIdentifier(loop), interval: interval.nanoseconds)
        running.withLockedValue { running in
            let ticker: HeartbeatTicker
            if let existing = running[key] {
                ticker = existing
            } else {
                ticker = HeartbeatTicker()
                running[key] = ticker
                ticker.task = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in ticker.tick() }
            }
            ticker.members[ObjectIdentifier(outlet)] = outlet
        }
    }

    /// `outlet` has no heartbeat any more (its stream ended); the ticker stops with its last stream.
    static func leave(_ outlet: ClientOutlet, loop: any EventLoop, interval: TimeAmount) {
        let key = Key(loop: ObjectIdentifier(loop), interval: interval.nanoseconds)
        let stopped = running.withLockedValue { running -> RepeatedTask? in
            guard let ticker = running[key], ticker.members.removeValue(forKey: ObjectIdentifier(outlet)) != nil,
                  ticker.members.isEmpty else { return nil }
            running[key] = nil
            defer { ticker.task = nil }
            return ticker.task
        }
        stopped?.cancel()
    }

    /// How many tickers run on `loop` now, and how many streams they serve (for tests).
    static func census(on loop: any EventLoop) -> (tickers: Int, streams: Int) {
        running.withLockedValue { running in
            let tickers = running.filter { $0.key.loop == ObjectIdentifier(loop) }.values
            return (tickers.count, tickers.reduce(0) { $0 + $1.members.count })
        }
    }

    private func tick() {
        let outlets = Self.running.withLockedValue { _ in Array(members.values) }
        for outlet in outlets { outlet.heartbeatTick() }
    }
}
#endif
