import Foundation

/// What a ``Timeline`` recorded: the lanes (one per subscription), their events in the order they
/// happened, and how many older events were dropped to stay within the timeline's capacity.
///
/// Export it with ``chromeTraceJSON()`` (Chrome Trace Event JSON, for Perfetto and
/// `chrome://tracing`) or ``html(title:)`` (a page that needs nothing else), or write either to a
/// file.
public struct TimelineRecording: Sendable, Equatable {
    /// The subscriptions seen, in the order they were made.
    public let lanes: [TimelineLane]
    /// The events kept, oldest first.
    public let events: [TimelineEvent]
    /// How many events were dropped, oldest first, once the timeline's capacity was reached.
    public let dropped: Int

    /// A recording; ``Timeline`` makes them.
    public init(lanes: [TimelineLane], events: [TimelineEvent], dropped: Int) {
        self.lanes = lanes
        self.events = events
        self.dropped = dropped
    }

    /// The events of lane `id`, oldest first.
    public func events(ofLane id: Int) -> [TimelineEvent] {
        events.filter { $0.lane == id }
    }

    /// Writes ``chromeTraceJSON()`` to the file at `path` (replacing it).
    public func writeChromeTrace(to path: String) throws {
        try Data(chromeTraceJSON().utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Writes ``html(title:)`` to the file at `path` (replacing it).
    public func writeHTML(to path: String, title: String = "Sluice timeline") throws {
        try Data(html(title: title).utf8).write(to: URL(fileURLWithPath: path))
    }
}
