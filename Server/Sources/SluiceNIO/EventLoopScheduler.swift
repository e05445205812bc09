#if Server
import NIOCore
import Sluice

/// One SwiftNIO `EventLoop` as a Combine scheduler: `receive(on:)`, `debounce`, `throttle`,
/// `timeout`, `delay` and `collect(.byTime)` run on the loop that owns a connection, with no hop to
/// a `DispatchQueue` and back.
///
/// ```swift
/// let scheduler = EventLoopScheduler(channel.eventLoop)
/// let cancellable = prices
///     .throttle(for: .milliseconds(100), scheduler: scheduler, latest: true)
///     .sink { price in channel.writeAndFlush(price, promise: nil) }   // on the channel's loop
/// ```
///
/// - Time is the loop's own clock (``SchedulerTimeType`` wraps a `NIODeadline`, read from
///   `EventLoop.now`), so on an `EmbeddedEventLoop` or a `NIOAsyncTestingEventLoop` time is
///   virtual: it moves when the test advances it.
/// - `schedule(_:)` runs the action on the loop, after the loop's pending work (never inline, even
///   when called on the loop). `schedule(after:)` uses the loop's timers. The repeating form runs
///   at a **fixed rate**, at `date + k × interval` as Dispatch does — not with NIO's fixed delay
///   between the end of one run and the start of the next; a tick that falls behind (a busy loop) is
///   skipped, not run late twice. `minimumTolerance` is zero; a tolerance is not used (NIO timers
///   have none).
/// - **A loop that has shut down never crashes the process and never makes NIO print its "Cannot
///   schedule tasks on an EventLoop that has already shut down" error**: work scheduled on it is
///   dropped, and the `Cancellable` of a repeating schedule is inert. Work scheduled before the
///   shutdown runs if it was due (NIO runs a loop's pending immediate tasks when it stops) and is
///   dropped if it was for later. The scheduler learns of the shutdown from the loop itself (a
///   timer NIO cancels when the loop stops, set the first time a scheduler is made for the loop);
///   the one call SwiftNIO cannot answer without printing is the first scheduler made for a loop
///   that has already shut down, and a call that races the loop's very last tick on another thread.
/// - The scheduler is serial, as Combine requires: it wraps one loop, not an `EventLoopGroup`.
public struct EventLoopScheduler: Scheduler, Sendable {
    /// The loop this scheduler runs its actions on.
    public let eventLoop: any EventLoop

    let liveness: LoopLiveness

    /// A scheduler that runs its actions on `eventLoop`.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.liveness = LoopLiveness.of(eventLoop)
    }

    /// Options for the event loop scheduler: there are none (NIO's tasks take no quality of
    /// service or group).
    public struct SchedulerOptions: Sendable {
        /// No options.
        public init() {}
    }

    /// The loop's current time, `EventLoop.now`: virtual on an `EmbeddedEventLoop`.
    public var now: SchedulerTimeType { SchedulerTimeType(eventLoop.now) }

    /// Zero: NIO's timers take no leeway.
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// Whether the loop is still accepting work, as far as this scheduler knows: `false` once the
    /// loop has shut down, after which every schedule is dropped.
    public var isLoopOpen: Bool { liveness.isOpen }

    /// Runs `action` on the loop, after what the loop already has to do; dropped if the loop has
    /// shut down.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        guard liveness.isOpen else { return }
        // The action itself goes to the loop, no closure around it: no allocation of ours.
        eventLoop.execute(UncheckedAction(action).sendable)
    }

    /// Runs `action` on the loop at `date` (by the loop's clock); dropped if the loop shuts down
    /// first. The tolerance is not used.
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        guard liveness.isOpen else { return }
        _ = try? eventLoop.scheduleCallback(at: date.deadline, handler: OneShotCallback(action))
    }

    /// Runs `action` on the loop at `date`, then at `date + interval`, `date + 2 × interval`… (a
    /// fixed rate, by the loop's clock) until the returned cancellable is cancelled or released, or
    /// the loop shuts down. Cancelling on the loop means no further run; from another thread, a
    /// run already begun on the loop finishes. An interval of zero or less runs once per loop tick.
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        guard liveness.isOpen else { return AnyCancellable {} }
        let repeater = FixedRateRepeater(loop: eventLoop, start: date.deadline, interval: interval.timeAmount, action: action)
        repeater.begin()
        return AnyCancellable { repeater.cancel() }
    }
}

/// A one-off action as a NIO scheduled callback: the handler is the only allocation the scheduler
/// adds (a `scheduleTask` would add a promise, its future and three closures).
final class OneShotCallback: NIOScheduledCallbackHandler, @unchecked Sendable {
    // Run once, on the loop; never touched elsewhere after init.
    private let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
    func handleScheduledCallback(eventLoop: some EventLoop) { action() }
}
#endif
