import SluiceExamples
import Testing

@Suite("Examples narration")
struct ExamplesTests {
    @Test func pepBoysNarration() throws {
        let lines = Lines()
        Examples.pepBoys(print: lines.append)
        let all = lines.all

        // The naive publisher is caught sending beyond the demand; the good one never is.
        let naive = try #require(all.firstIndex(of: "== Pep Boys, ignoring backpressure =="))
        let good = try #require(all.firstIndex(of: "== Pep Boys, honouring backpressure =="))
        let sink = try #require(all.firstIndex(of: "== Pep Boys into a sink =="))
        #expect(all[naive..<good].contains { $0.contains("more than requested!") })
        #expect(!all[good...].contains { $0.contains("more than requested!") })
        #expect(Array(all[good...].prefix(7)) == [
            "== Pep Boys, honouring backpressure ==",
            "subscriber requests max(2); limit is max(2)",
            "received Manny; limit is max(1)",
            "received Moe; limit is max(0)",
            "subscriber requests max(1); limit is max(1)",
            "received Jack; limit is max(0)",
            "received completion: finished",
        ])
        #expect(Array(all[(sink + 1)...]) == ["Manny", "Moe", "Jack", "completion: finished"])
    }

    @Test func runAllNarratesEveryExample() {
        let lines = Lines()
        Examples.runAll(print: lines.append)
        let all = lines.all
        for heading in ["== Pep Boys into a sink ==", "== Control events ==", "== Playhead progress ==",
                        "== Data task ==", "== Mapper ==", "== Shipping form =="] {
            #expect(all.contains(heading))
        }
        #expect(!all.contains { $0.hasPrefix("unexpected") })
        #expect(all.contains("text field now reads \"Moe\""))
        #expect(all.contains("cancelled: time observers 0"))
        #expect(all.contains("received \"Manny, Moe and Jack\" (status 200); limit is max(0)"))
        #expect(all.contains("mapped value: 4 String"))
        #expect(all.contains("shipping info: Moe, Elm St, NY"))
        #expect(all.last == "results for \"sh\": [\"Shemp\"]")
    }

    @Test func shippingFormNarration() {
        let lines = Lines()
        Examples.shippingForm(print: lines.append)
        #expect(lines.all == [
            "== Shipping form ==",
            "user types name \"Moe\"",
            "user types address \"Elm St\"",
            "nothing published yet: shipping info is empty",
            "user types city \"NY\"",
            "shipping info: Moe, Elm St, N",
            "shipping info: Moe, Elm St, NY",
        ])
    }

    @Test func realDataTaskNarration() {
        let lines = Lines()
        Examples.realDataTask(print: lines.append)
        #expect(lines.all == [
            "== Data task, for real: URLSession against a server on loopback ==",
            "GET /pep-boys on the server",
            "value: status 200: \"Manny, Moe and Jack\"",
            "completion: finished",
            "GET /stooges on the server",
            "value: status 404: \"not here\"",
            "completion: finished",
            "GET /pep-boys on a closed port",
            "completion: failure(URLError -1004)",
        ])
    }
}
