import SluiceExamples
import SluiceTimeline
import Testing

/// The recorded search box of the article "Seeing a pipeline". Its timeline records every
/// subscription of the process, so it runs in a child process of its own (an exit test).
@Suite struct SearchTimelineTests {
    @Test func theRecordingHasALaneForEachStageAndOneLookupPerBurst() async {
        await #expect(processExitsWith: .success) {
            // A quiet period of 2 s and no pause within a burst: a burst splits only if sending
            // its next keystroke took 2 s (a Thread Sanitizer run on a busy machine splits 300 ms).
            let recording = Examples.searchBoxTimeline(quiet: 2_000, typingPause: 0)
            let publishers = recording.lanes.map(\.publisher)
            // sink ← receive(on:) ← flatMap ← removeDuplicates ← debounce ← the subject …
            for stage in ["ReceiveOn", "FlatMap", "RemoveDuplicates", "Debounce", "PassthroughSubject"] {
                precondition(publishers.filter { $0 == stage }.count == 1, "\(stage): \(recording.lanes)")
            }
            // … and, per burst of typing, a lookup: flatMap subscribes to a delayed Just.
            precondition(publishers.filter { $0 == "Delay" }.count == 2, "\(recording.lanes)")
            precondition(publishers.filter { $0 == "Just" }.count == 2, "\(recording.lanes)")
            let values = recording.events(ofLane: recording.lanes[0].id).compactMap { event -> String? in
                if case .value(let text) = event.kind { text } else { nil }
            }
            precondition(values == [#"["Curly"]"#, #"["Shemp"]"#], "\(values)")
            precondition(recording.dropped == 0)
        }
    }
}
