/// One subscription seen by a ``Timeline``: a stage of a pipeline, drawn as one lane.
///
/// Each `subscribe` made while the timeline records gets a lane: a chain `source.map { }.sink { }`
/// has one for the sink (subscribed to the map) and one for the map's own subscriber (subscribed
/// to the source).
public struct TimelineLane: Sendable, Equatable, Identifiable {
    /// The lane's number, from 1, in the order the subscriptions were made.
    public let id: Int
    /// The subscriber, as `String(describing:)` shows it (`"Sink"`, `"Map"`, …), or its type's
    /// name without generic arguments when that is how it describes itself (`"ScheduledRelay"`).
    public let subscriber: String
    /// The publisher's type, without its generic arguments (`"Map"`, `"Sequence"`, …).
    public let publisher: String

    /// A lane; ``Timeline`` makes them as it records.
    public init(id: Int, subscriber: String, publisher: String) {
        self.id = id
        self.subscriber = subscriber
        self.publisher = publisher
    }

    /// `"1 Sink ← Map"`: the number, the subscriber and the publisher it subscribed to.
    public var title: String { "\(id) \(subscriber) ← \(publisher)" }
}
