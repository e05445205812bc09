import SluiceCore

/// One thing that happened to one subscription while a ``Timeline`` was recording: its
/// subscription, a request, a value, demand returned from `receive(_:)`, its completion, or a
/// cancel — with the thread it happened on and when.
public struct TimelineEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A publisher received the lane's subscriber (`subscribe`).
        case subscribe
        /// The lane's subscriber requested this demand from its subscription.
        case request(Subscribers.Demand)
        /// The lane's subscriber received a value, described with `String(describing:)`
        /// (cut to 200 characters).
        case value(String)
        /// The lane's subscriber returned this demand (more than `.none`) from `receive(_:)`.
        case returnedDemand(Subscribers.Demand)
        /// The lane's subscriber received its completion: `"finished"` or `"failure(…)"`.
        case completion(String)
        /// The lane's subscriber cancelled its subscription.
        case cancel
    }

    /// The lane (``TimelineLane/id``) of the subscription it happened to.
    public let lane: Int
    /// What happened.
    public let kind: Kind
    /// The thread it happened on, numbered from 1 in order of first appearance in the recording.
    public let thread: Int
    /// When it happened, on a monotonic clock, since the recording started.
    public let time: Duration

    /// An event; ``Timeline`` makes them as it records.
    public init(lane: Int, kind: Kind, thread: Int, time: Duration) {
        self.lane = lane
        self.kind = kind
        self.thread = thread
        self.time = time
    }
}
