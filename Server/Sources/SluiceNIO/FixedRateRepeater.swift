#if Server
import NIOCore
import NIOConcurrencyHelpers

/// The repeating schedule of ``EventLoopScheduler``: runs `action` on the loop at `start`,
/// `start + interval`, `start + 2 × interval`… A run that ends past one or more of those times
/// (a busy loop) goes on at the next one still ahead: missed ticks are skipped, as Dispatch
/// coalesces them, never run back to back.
///
/// One NIO timer is pending at a time; this object is its handler. A cancel marks the schedule
/// cancelled (checked on the loop before each run) and cancels the pending timer, so the loop lets
/// go of the action at once rather than at the next tick.
final class FixedRateRepeater: NIOScheduledCallbackHandler, @unchecked Sendable {
    private let loop: any EventLoop
    private let start: NIODeadline
    private let interval: Int64
    // Run on the loop only.
    private let action: () -> Void
    private let state = NIOLockedValueBox<State>(State())

    private struct State {
        var cancelled = false
        var tick: Int64 = 0
        var pending: NIOScheduledCallback?
    }

    init(loop: any EventLoop, start: NIODeadline, interval: TimeAmount, action: @escaping () -> Void) {
        self.loop = loop
        self.start = start
        self.interval = max(interval.nanoseconds, 1)
        self.action = action
    }

    func begin() {
        arm(at: start)
    }

    func handleScheduledCallback(eventLoop: some EventLoop) {
        let isCancelled = state.withLockedValue { $0.cancelled }
        guard !isCancelled else { return }
        action()
        let now = loop.now
        let next = state.withLockedValue { state -> NIODeadline? in
            guard !state.cancelled else { return nil }
            var tick = state.tick + 1
            let elapsed = (now - start).nanoseconds
            if elapsed >= 0 && elapsed / interval >= tick { tick = elapsed / interval + 1 }
            state.tick = tick
            let (offset, overflow) = tick.multipliedReportingOverflow(by: interval)
            return overflow ? .distantFuture : start + .nanoseconds(offset)
        }
        if let next { arm(at: next) }
    }

    /// Sets the timer for `deadline`, and cancels it at once if the schedule was cancelled
    /// meanwhile (a cancel from another thread).
    private func arm(at deadline: NIODeadline) {
        guard let callback = try? loop.scheduleCallback(at: deadline, handler: self) else { return }
        let cancelledMeanwhile = state.withLockedValue { state -> Bool in
            if state.cancelled { return true }
            state.pending = callback
            return false
        }
        if cancelledMeanwhile { callback.cancel() }
    }

    func cancel() {
        let pending = state.withLockedValue { state -> NIOScheduledCallback? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.pending = nil }
            return state.pending
        }
        pending?.cancel()
    }
}
#endif
