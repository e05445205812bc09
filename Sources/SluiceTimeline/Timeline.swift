import SluiceCore

/// Records what the pipelines of a program do — every subscribe, request, value, returned demand,
/// completion and cancel, with its thread and a monotonic time — to look at afterwards as a
/// timeline: Chrome Trace Event JSON (Perfetto, `chrome://tracing`) or a self-contained HTML page.
///
/// In a test, record the body of a closure:
///
/// ```swift
/// let recording = Timeline.record {
///     _ = [1, 2, 3].publisher.map { $0 * 2 }.sink { _ in }
/// }
/// try recording.writeHTML(to: "/tmp/map.html")
/// ```
///
/// In a running program, start and stop a timeline:
///
/// ```swift
/// let timeline = Timeline()
/// timeline.start()
/// // … the program runs …
/// timeline.stop()
/// try timeline.recording.writeChromeTrace(to: "/tmp/pipeline.json")
/// ```
///
/// Each subscription made while the timeline records is a lane (``TimelineLane``); each event
/// (``TimelineEvent``) belongs to one. Subscriptions made before it started are not seen, nor are
/// events of any subscription once it stopped. At most `capacity` events are kept: past that, the
/// oldest are dropped and counted (``TimelineRecording/dropped``).
///
/// It is built on Combine's `_Introspection` hook: while no timeline (or other introspection)
/// records, `subscribe` costs one flag check more than without this module, and nothing else. While
/// one records, every event takes a lock and, for values, `String(describing:)`. Methods may be
/// called from any thread.
///
/// The hook is process-wide: while any timeline records, every subscription made in the process —
/// recorded or not — gets the hook's forwarding subscriber and subscription in front of it (they
/// show as what they forward, but a `Mirror` sees them). In a test suite that runs tests in
/// parallel, record in an exit test (a child process), as this module's own tests do.
public final class Timeline: Sendable {
    private let tap: TimelineTap

    /// A timeline that keeps at most `capacity` events (the latest), recording what `scope` says.
    ///
    /// - Parameters:
    ///   - capacity: How many events are kept; 100,000 by default (about 6 MB).
    ///   - scope: ``Scope/process`` (the default) records every subscription made in the process;
    ///     ``Scope/currentTask`` only those made inside `record`'s body.
    public init(capacity: Int = 100_000, scope: Scope = .process) {
        tap = TimelineTap(capacity: capacity, scope: scope)
    }

    /// Starts recording, from an empty recording and a clock at zero. Starting a recording
    /// timeline starts it over.
    public func start() {
        tap.disable()
        tap.reset()
        tap.enable()
    }

    /// Stops recording; ``recording`` keeps what was recorded.
    public func stop() {
        tap.disable()
    }

    /// Whether the timeline is recording.
    public var isRecording: Bool { tap.isEnabled }

    /// What has been recorded so far (while recording, up to now).
    public var recording: TimelineRecording { tap.recording }

    /// Records the subscriptions `body` makes (by default only those made by code running in the
    /// calling task, so that other pipelines of the process do not show up), and returns the
    /// recording.
    ///
    /// - Parameters:
    ///   - capacity: How many events are kept (the latest).
    ///   - scope: ``Scope/currentTask`` (the default) or ``Scope/process``.
    ///   - body: The code whose pipelines to record.
    public static func record(
        capacity: Int = 100_000, scope: Scope = .currentTask, _ body: () throws -> Void
    ) rethrows -> TimelineRecording {
        let timeline = Timeline(capacity: capacity, scope: scope)
        timeline.start()
        defer { timeline.stop() }
        try TimelineTask.$recorder.withValue(ObjectIdentifier(timeline.tap)) { try body() }
        return timeline.recording
    }

    /// Records the subscriptions `body` makes, awaiting it (by default only those made by code
    /// running in the calling task), and returns the recording.
    ///
    /// - Parameters:
    ///   - capacity: How many events are kept (the latest).
    ///   - scope: ``Scope/currentTask`` (the default) or ``Scope/process``.
    ///   - body: The code whose pipelines to record.
    public static func record(
        capacity: Int = 100_000, scope: Scope = .currentTask, _ body: () async throws -> Void
    ) async rethrows -> TimelineRecording {
        let timeline = Timeline(capacity: capacity, scope: scope)
        timeline.start()
        defer { timeline.stop() }
        try await TimelineTask.$recorder.withValue(ObjectIdentifier(timeline.tap)) { try await body() }
        return timeline.recording
    }
}
