import Foundation
import SluiceCore
import SluiceTimeline
import Testing

/// Each test records in a child process of its own (see ``TimelineTests``).
@Suite struct TimelineRecordingChromeTraceTests {
    /// A bounded-demand pipeline with two stages: `subject.map { }` into a subscriber that asks
    /// for two values, then one more from the first.
    static func recording() -> TimelineRecording {
        let subject = PassthroughSubject<Int, Never>()
        return Timeline.record {
            subject.map { $0 + 1 }.subscribe(AnySubscriber(
                receiveSubscription: { $0.request(.max(2)) },
                receiveValue: { $0 == 2 ? .max(1) : .none },
                receiveCompletion: nil))
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
        }
    }

    /// The `traceEvents` of `json`, parsed back with `JSONSerialization`.
    static func traceEvents(_ json: String) -> [[String: Any]] {
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8))
        guard let root = object as? [String: Any], let events = root["traceEvents"] as? [[String: Any]] else {
            preconditionFailure("not a JSON object with a traceEvents array: \(json)")
        }
        return events
    }

    @Test func everyEventHasTheFieldsTheFormatRequires() async {
        await #expect(processExitsWith: .success) {
            let events = Self.traceEvents(Self.recording().chromeTraceJSON())
            precondition(!events.isEmpty)
            for event in events {
                let phase = event["ph"] as? String
                precondition(["M", "X", "i", "C"].contains(phase), "\(event)")
                precondition(event["name"] is String && event["pid"] is Int && event["tid"] is Int, "\(event)")
                precondition(event["args"] is [String: Any], "\(event)")
                precondition(phase == "M" || event["ts"] is NSNumber, "\(event)")
                precondition(phase != "X" || event["dur"] is NSNumber, "\(event)")
                precondition(phase != "i" || event["s"] as? String == "t", "\(event)")
            }
        }
    }

    @Test func eachLaneIsANamedTrack() async {
        await #expect(processExitsWith: .success) {
            let recording = Self.recording()
            let named = Self.traceEvents(recording.chromeTraceJSON())
                .filter { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name" }
            let tracks = named.compactMap { $0["tid"] as? Int }
            let names = named.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
            precondition(tracks == recording.lanes.map(\.id), "\(tracks)")
            precondition(names == ["1 Anonymous AnySubscriber ← Map", "2 Map ← PassthroughSubject"], "\(names)")
        }
    }

    @Test func valuesDemandAndTheCounterAreThere() async {
        await #expect(processExitsWith: .success) {
            let events = Self.traceEvents(Self.recording().chromeTraceJSON())
            let values = events.filter { $0["cat"] as? String == "value" && $0["tid"] as? Int == 1 }
                .compactMap { ($0["args"] as? [String: Any])?["value"] as? String }
            precondition(values == ["2", "3"], "\(values)")
            let counter = events.filter { $0["ph"] as? String == "C" && $0["tid"] as? Int == 1 }
                .compactMap { ($0["args"] as? [String: Any])?["outstanding"] as? Int }
            // .max(2) requested; value 2 (1 owed), then .max(1) returned (2 owed); value 3 (1 owed).
            precondition(counter == [2, 1, 2, 1], "\(counter)")
            let times = events.filter { $0["ph"] as? String == "i" }.compactMap { ($0["ts"] as? NSNumber)?.doubleValue }
            precondition(times == times.sorted(), "\(times)")
        }
    }

    @Test func textIsEscaped() async {
        await #expect(processExitsWith: .success) {
            let recording = Timeline.record {
                _ = Just("a \"quoted\"\n</script> value\u{1}").sink { _ in }
            }
            let values = Self.traceEvents(recording.chromeTraceJSON())
                .compactMap { ($0["args"] as? [String: Any])?["value"] as? String }
            precondition(values == ["a \"quoted\"\n</script> value\u{1}"], "\(values)")
        }
    }
}
