/// A scheduler that takes one action once and then runs it again each time it is asked to, at the
/// next opportunity: cheaper per run than a new closure handed to `schedule(options:_:)` (a
/// dispatch queue turns every closure it is given into a block of its own, an allocation each).
///
/// `receive(on:)` uses it: its relay prepares one action per subscription, the values wait in the
/// relay in arrival order, and each run delivers the oldest one. The events, their order and where
/// they run are those of one `schedule(options:_:)` per value.
@usableFromInline
package protocol RepeatingScheduler: Scheduler {
    /// Prepares `action` and returns what schedules one more run of it, as
    /// `schedule(options: options, action)` would.
    func repeater(for action: @escaping () -> Void, options: SchedulerOptions?) -> () -> Void
}

extension NextOpportunity {
    /// What schedules one more run of `action` on the scheduler, when it is a
    /// ``RepeatingScheduler``; `nil` otherwise. Asked once per subscription.
    @inlinable
    func repeater(for action: @escaping () -> Void) -> (() -> Void)? {
        guard let scheduler = scheduler as? any RepeatingScheduler else { return nil }
        return repeater(on: scheduler, for: action)
    }

    /// ``repeater(for:)`` with the scheduler's type opened (it is `Context`, so the options are its).
    @inlinable
    func repeater<Repeating: RepeatingScheduler>(on scheduler: Repeating, for action: @escaping () -> Void) -> () -> Void {
        scheduler.repeater(for: action, options: options as? Repeating.SchedulerOptions)
    }
}
