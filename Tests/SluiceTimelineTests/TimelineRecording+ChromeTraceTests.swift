import Foundation
import SluiceCore
import SluiceTimeline
import Testing

@Suite struct TimelineRecordingChromeTraceTests {
    /// A bounded-demand pipeline with two stages: `subject.map { }` into a subscriber that asks
    /// for two values, then one more from the first.
    private static func recording() -> TimelineRecording {
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

    private static func traceEvents(_ json: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let root = try #require(object as? [String: Any])
        return try #require(root["traceEvents"] as? [[String: Any]])
    }

    @Test func everyEventHasTheFieldsTheFormatRequires() throws {
        let events = try Self.traceEvents(Self.recording().chromeTraceJSON())
        #expect(!events.isEmpty)
        for event in events {
            let phase = try #require(event["ph"] as? String, "\(event)")
            #expect(["M", "X", "i", "C"].contains(phase), "\(event)")
            #expect(event["name"] is String, "\(event)")
            #expect(event["pid"] is Int, "\(event)")
            #expect(event["tid"] is Int, "\(event)")
            #expect(event["args"] is [String: Any], "\(event)")
            if phase != "M" { #expect(event["ts"] is NSNumber, "\(event)") }
            if phase == "X" { #expect(event["dur"] is NSNumber, "\(event)") }
            if phase == "i" { #expect(event["s"] as? String == "t", "\(event)") }
        }
    }

    @Test func eachLaneIsANamedTrack() throws {
        let recording = Self.recording()
        let events = try Self.traceEvents(recording.chromeTraceJSON())
        let names = events.filter { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name" }
            .compactMap { event -> (Int, String)? in
                guard let tid = event["tid"] as? Int, let args = event["args"] as? [String: Any],
                      let name = args["name"] as? String else { return nil }
                return (tid, name)
            }
        #expect(names.map(\.0) == recording.lanes.map(\.id))
        #expect(names.map(\.1) == ["1 Anonymous AnySubscriber ← Map", "2 Map ← PassthroughSubject"])
    }

    @Test func valuesDemandAndTheCounterAreThere() throws {
        let events = try Self.traceEvents(Self.recording().chromeTraceJSON())
        let values = events.filter { $0["cat"] as? String == "value" && $0["tid"] as? Int == 1 }
            .compactMap { ($0["args"] as? [String: Any])?["value"] as? String }
        #expect(values == ["2", "3"])
        let counter = events.filter { $0["ph"] as? String == "C" && $0["tid"] as? Int == 1 }
            .compactMap { ($0["args"] as? [String: Any])?["outstanding"] as? Int }
        // .max(2) requested; value 2 (1 owed), then .max(1) returned (2 owed); value 3 (1 owed).
        #expect(counter == [2, 1, 2, 1])
        let times = events.filter { $0["ph"] as? String == "i" }.compactMap { ($0["ts"] as? NSNumber)?.doubleValue }
        #expect(times == times.sorted())
    }

    @Test func textIsEscaped() throws {
        let recording = Timeline.record {
            _ = Just("a \"quoted\"\n</script> value\u{1}").sink { _ in }
        }
        let events = try Self.traceEvents(recording.chromeTraceJSON())
        let value = events.compactMap { ($0["args"] as? [String: Any])?["value"] as? String }
        #expect(value == ["a \"quoted\"\n</script> value\u{1}"])
    }
}
