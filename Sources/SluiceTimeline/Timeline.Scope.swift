extension Timeline {
    /// Which subscriptions a ``Timeline`` records.
    public enum Scope: Sendable, Equatable {
        /// Every subscription made in the process while the timeline records.
        case process
        /// The subscriptions made by code running in the task (or, outside any task, on the
        /// thread) that called `Timeline.record`, inside its body: pipelines built elsewhere in the
        /// process meanwhile stay out of the recording. Their events are recorded on whatever thread
        /// they happen; subscriptions made elsewhere (on a scheduler's thread) are not. (The hook
        /// itself is process-wide: see ``Timeline``.)
        case currentTask
    }
}
