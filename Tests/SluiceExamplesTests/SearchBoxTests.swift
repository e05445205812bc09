import Dispatch
import Sluice
import SluiceExamples
import SluiceTesting
import Testing

/// The search box in virtual time: no sleeping, exact timing.
@Suite struct SearchBoxTests {
    @Test func searchesOnlyAfterAPauseAndShowsResultsOnTheResultScheduler() {
        let debounce = DispatchQueue.test
        let results = DispatchQueue.test
        var searched: [String] = []
        var shown: [String] = []
        let box = SearchBox(debounceFor: .milliseconds(300), on: debounce, resultsOn: results,
                            search: { searched.append($0); return [$0.uppercased()] },
                            show: { text, found in shown.append("\(text) → \(found)") })
        box.query.send("c")
        debounce.advance(by: .milliseconds(100))
        box.query.send("cu")
        debounce.advance(by: .milliseconds(299))
        #expect(searched.isEmpty)
        debounce.advance(by: .milliseconds(1))
        #expect(searched == ["cu"])
        #expect(shown.isEmpty)                 // not before the result scheduler runs
        results.advance()
        #expect(shown == ["cu → [\"CU\"]"])
        box.query.send("cu")                   // the same text again: no new search
        box.query.send("")                     // an empty box: no search
        debounce.advance(by: .seconds(1))
        results.advance()
        #expect(searched == ["cu"])
        box.close()
    }

    @Test func theNarratedExampleOnRealQueues() {
        var lines: [String] = []
        Examples.searchBox(print: { lines.append($0) })
        #expect(lines.first == "== Search box: debounced on a DispatchQueue, results on a serial queue ==")
        #expect(lines.contains("results for \"cur\": [\"Curly\"]"))
        #expect(lines.contains("results for \"sh\": [\"Shemp\"]"))
        #expect(!lines.contains { $0.hasPrefix("results for \"c\"") || $0.hasPrefix("results for \"s\"") })
    }
}
