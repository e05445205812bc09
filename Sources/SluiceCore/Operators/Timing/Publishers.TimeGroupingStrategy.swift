extension Publishers {
    /// A strategy for collecting received elements: by time, or by time or count.
    public enum TimeGroupingStrategy<Context: Scheduler> {
        /// A grouping that collects and periodically publishes items: every `Stride`.
        case byTime(Context, Context.SchedulerTimeType.Stride)

        /// A grouping that collects and publishes items periodically (every `Stride`) or when a
        /// buffer reaches a maximum size (the `Int`).
        case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
    }
}
