import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// The operator pictures under `docs/marbles/` (the table is `OperatorMarbles`): each drawn from a
/// run of the real operators on a `TestScheduler`, and compared with the committed picture — an
/// operator whose output changes changes its picture, and this check fails until it is redrawn
/// (`docs/marbles/regenerate`, which sets `SLUICE_REGENERATE_MARBLES=1`).
@Suite struct MarbleSVGTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/marbles")

    static func file(_ name: String) -> URL {
        folder.appendingPathComponent("\(name).svg")
    }

    @Test(arguments: OperatorMarbles.all.map(\.name))
    func theCommittedDiagramIsWhatTheOperatorDoes(_ name: String) throws {
        let fresh = OperatorMarbles.named(name).svg()
        if ProcessInfo.processInfo.environment["SLUICE_REGENERATE_MARBLES"] == "1" {
            try Data(fresh.utf8).write(to: Self.file(name))
        }
        let committed = try String(contentsOf: Self.file(name), encoding: .utf8)
        #expect(committed == fresh, "docs/marbles/\(name).svg differs from a fresh run: run docs/marbles/regenerate and review the change")
    }

    @Test func theCommittedIndexIsTheTable() throws {
        let fresh = try OperatorMarbles.index()
        let file = Self.folder.appendingPathComponent("index.json")
        if ProcessInfo.processInfo.environment["SLUICE_REGENERATE_MARBLES"] == "1" {
            try fresh.write(to: file)
        }
        #expect(try Data(contentsOf: file) == fresh, "docs/marbles/index.json differs from the table: run docs/marbles/regenerate")
    }

    @Test func everyCommittedDiagramHasItsRun() throws {
        let committed = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".svg") }.map { String($0.dropLast(4)) }
        #expect(Set(committed) == Set(OperatorMarbles.all.map(\.name)))
        #expect(OperatorMarbles.all.count == Set(OperatorMarbles.all.map(\.name)).count, "two pictures share a name")
    }

    @Test func anOperatorSwappedForAnotherFailsTheCheck() throws {
        // map's picture, run with lowercased() in place of uppercased() under the same label: the
        // check must see it.
        let map = OperatorMarbles.named("map")
        let swapped = OperatorMarble(name: map.name, family: map.family, operators: map.operators) { bench in
            bench.output("map { $0.uppercased() }", bench.cold("source", "-a-b--c|").map { $0.lowercased() })
        }
        let committed = try String(contentsOf: Self.file("map"), encoding: .utf8)
        #expect(committed == map.svg())
        #expect(committed != swapped.svg())
    }

    @Test func recordedRunsAreTheDiagramsExpected() {
        // A few of the pictures, read back as text: what Combine's documentation says each does.
        func outputs(_ name: String) -> [String] {
            OperatorMarbles.named(name).drawing().outputs.map(\.diagram)
        }
        #expect(outputs("map") == ["-A-B--C|"])
        #expect(outputs("filter") == ["---B---D|"])
        #expect(outputs("debounce") == ["------b-----c|"])
        #expect(outputs("merge") == ["a-x-b-y-z|"])
        #expect(outputs("throttle") == ["-a--b---d--e---|", "-a--c---d--f---|"])
        #expect(outputs("switchToLatest") == ["--1--3---4--|"])
        #expect(outputs("share") == ["-a-b-c-d|", "-----c-d|", "-----a-b-c-d|"])
    }

    @Test func longValuesAreDrawnAsLettersWithALegend() {
        let (inputs, outputs, legend) = OperatorMarbles.named("collect").drawing()
        #expect((inputs + outputs).map(\.diagram) == ["-a-b-c-d-e|", "----------(α|)", "---β---γ--(δ|)"])
        #expect(legend == [#"α = ["a", "b", "c", "d", "e"]"#, #"β = ["a", "b"]"#, #"γ = ["c", "d"]"#, #"δ = ["e"]"#])
    }

    @Test func thePictureCarriesItsDiagramsAsTextAndFollowsTheColourScheme() {
        let svg = MarbleSVG.render(title: "a <title>", rows: [("source", "-a-(bc)-#")], legend: ["α = ab"])
        #expect(svg.contains("<desc id=\"marble-desc\">source: -a-(bc)-#; α = ab</desc>"))
        #expect(svg.contains("<title id=\"marble-title\">a &lt;title&gt;</title>"))
        #expect(svg.contains("@media (prefers-color-scheme: dark)"))
        #expect(svg.components(separatedBy: "<circle").count - 1 == 3)
        #expect(svg.contains("class=\"fail\""))
        #expect(svg.contains(">α = ab</text>"))
    }

    @Test func severalPublishersAreRecordedInOneRun() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        let tick = VirtualTime.Stride.milliseconds(100)
        let source: AnyPublisher<String, Never> = scheduler.hotPublisher("-a-b-c|", tick: tick)
        let late = Just(()).delay(for: .milliseconds(300), scheduler: scheduler).flatMap { source }.eraseToAnyPublisher()
        let diagrams = scheduler.marbles(of: [source, late], frames: 8, tick: tick)
        #expect(diagrams == ["-a-b-c|", "-----c|"])
    }
}
