import Foundation
import SluiceCore
import SluiceTimeline
import Testing

@Suite struct TimelineRecordingHTMLTests {
    private static func page() -> String {
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
    private static func data(_ page: String) throws -> [String: Any] {
        let start = try #require(page.range(of: #"<script type="application/json" id="timeline-data">"#))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let json = String(page[start.upperBound..<end.lowerBound])
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func thePageCarriesTheRecording() throws {
        let data = try Self.data(Self.page())
        let lanes = try #require(data["lanes"] as? [[String: Any]])
        #expect(lanes.compactMap { $0["title"] as? String } == ["1 Sink ← Map", "2 Map ← PassthroughSubject"])
        let events = try #require(data["events"] as? [[String: Any]])
        let values = events.filter { $0["k"] as? String == "value" }.compactMap { $0["detail"] as? String }
        #expect(values == ["first <b>value</b>", "FIRST <B>VALUE</B>", "second", "SECOND"])
        #expect(events.filter { $0["k"] as? String == "cancel" }.count == 1)
        #expect(data["dropped"] as? Int == 0)
    }

    @Test func thePageLoadsNothingFromElsewhere() {
        let page = Self.page().lowercased()
        for outside in ["http:", "https:", "//", "src=", "<link", "@import", "url("] {
            #expect(!page.contains(outside), "the page contains \(outside)")
        }
    }

    @Test func markupInValuesAndTheTitleStaysText() {
        let page = Self.page()
        #expect(!page.contains("<b>"))
        #expect(page.contains("<title>Two values &amp; a cancel</title>"))
    }
}
