import Dispatch
import Foundation
import Sluice
import SluiceTimeline

extension Examples {
    /// The search box of the article "Seeing a pipeline", run on real dispatch queues and recorded
    /// by a ``Timeline``: keystrokes debounced for `quiet` milliseconds (300), repeated queries
    /// dropped, each query looked up by a publisher of its own (`flatMap`: a `Just` delayed 100 ms
    /// on a lookup queue), the results received on a serial queue. Two bursts of typing — "c",
    /// "cu", "cur", then "s", "sh", keystrokes `typingPause` milliseconds apart (50) — make two
    /// lookups: each burst's result is shown before the next burst begins (it waits for it, up to
    /// a minute), so only a pause within a burst as long as `quiet` could split it.
    ///
    /// Every subscription of the process is recorded while it runs (the lookups are subscribed on
    /// the debounce queue, outside the calling task), so call it where no other pipeline runs.
    public static func searchBoxTimeline(quiet: Int = 300, typingPause: Int = 50) -> TimelineRecording {
        let stooges = ["Moe", "Larry", "Curly", "Shemp", "Joe"]
        let debounce = DispatchQueue(label: "Examples.searchBoxTimeline.debounce")
        let lookups = DispatchQueue(label: "Examples.searchBoxTimeline.lookups")
        let results = DispatchQueue(label: "Examples.searchBoxTimeline.results")
        let shown = DispatchSemaphore(value: 0)
        let timeline = Timeline()
        timeline.start()
        let query = PassthroughSubject<String, Never>()
        let subscription = query
            .debounce(for: .milliseconds(quiet), scheduler: debounce)
            .removeDuplicates()
            .flatMap { text in
                Just(stooges.filter { $0.lowercased().hasPrefix(text.lowercased()) })
                    .delay(for: .milliseconds(100), scheduler: lookups)
            }
            .receive(on: results)
            .sink { _ in shown.signal() }
        for burst in [["c", "cu", "cur"], ["s", "sh"]] {
            for (index, typed) in burst.enumerated() {
                if index > 0 { Thread.sleep(forTimeInterval: Double(typingPause) / 1000) }
                query.send(typed)
            }
            _ = shown.wait(timeout: .now() + 60)
        }
        subscription.cancel()
        results.sync {}
        timeline.stop()
        return timeline.recording
    }

    /// Writes ``searchBoxTimeline()`` into the folder at `path` (made if missing), as
    /// `search-box.html` (the page that draws it) and `search-box.json` (Chrome Trace Event JSON).
    public static func writeSearchBoxTimeline(to path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let recording = searchBoxTimeline()
        try recording.writeHTML(to: path + "/search-box.html", title: "Search box: debounce, removeDuplicates, flatMap")
        try recording.writeChromeTrace(to: path + "/search-box.json")
    }
}
