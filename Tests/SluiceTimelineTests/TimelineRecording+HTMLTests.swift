import Foundation
import SluiceCore
import SluiceTimeline
import Testing

/// Each test records in a child process of its own (see ``TimelineTests``).
@Suite struct TimelineRecordingHTMLTests {
    static func page() -> String {
        let subject = PassthroughSubject<String, Never>()
        let recording = Timeline.record {
            let cancellable = subject.map { $0.uppercased() }.sink { _ in }
            subject.send("first <b>value</b>")
            subject.send("second")
            cancellable.cancel()
        }
        return recording.html(title: "Two values & a cancel")
    }

    /// The JSON the page carries, parsed back.
    static func data(_ page: String) -> [String: Any] {
        guard let start = page.range(of: #"<script type="application/json" id="timeline-data">"#),
              let end = page.range(of: "</script>", range: start.upperBound..<page.endIndex),
              let data = try? JSONSerialization.jsonObject(with: Data(page[start.upperBound..<end.lowerBound].utf8))
                as? [String: Any]
        else { preconditionFailure("no timeline data in the page") }
        return data
    }

    @Test func thePageCarriesTheRecording() async {
        await #expect(processExitsWith: .success) {
            let data = Self.data(Self.page())
            let lanes = (data["lanes"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            precondition(lanes == ["1 Sink ← Map", "2 Map ← PassthroughSubject"], "\(lanes)")
            let events = data["events"] as? [[String: Any]] ?? []
            let values = events.filter { $0["k"] as? String == "value" }.compactMap { $0["detail"] as? String }
            precondition(values == ["first <b>value</b>", "FIRST <B>VALUE</B>", "second", "SECOND"], "\(values)")
            precondition(events.filter { $0["k"] as? String == "cancel" }.count == 1)
            precondition(data["dropped"] as? Int == 0)
        }
    }

    @Test func thePageLoadsNothingFromElsewhere() async {
        await #expect(processExitsWith: .success) {
            let page = Self.page().lowercased()
            for outside in ["http:", "https:", "//", "src=", "<link", "@import", "url("] {
                precondition(!page.contains(outside), "the page contains \(outside)")
            }
        }
    }

    @Test func markupInValuesAndTheTitleStaysText() async {
        await #expect(processExitsWith: .success) {
            let page = Self.page()
            precondition(!page.contains("<b>"))
            precondition(page.contains("<title>Two values &amp; a cancel</title>"))
        }
    }
}
