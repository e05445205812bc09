import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// The operator diagrams under `docs/marbles/`: each drawn from a run of the real operator on a
/// `TestScheduler`, and compared with the committed picture — an operator whose output changes
/// changes its picture, and this check fails until it is regenerated (`docs/marbles/regenerate`,
/// which sets `SLUICE_REGENERATE_MARBLES=1`).
@Suite struct MarbleSVGTests {
    typealias Scheduler = TestScheduler<VirtualTime, Never>
    static let tick = VirtualTime.Stride.milliseconds(100)

    /// A drawing: the source diagram(s), the operator's output recorded from a run.
    struct Drawing {
        let name: String
        let rows: [(label: String, diagram: String)]
    }

    static func map(_ transform: @escaping (String) -> String = { $0.uppercased() }, label: String = "map { $0.uppercased() }") -> Drawing {
        let scheduler = Scheduler()
        let source = "-a-b--c|"
        let publisher: AnyPublisher<String, Never> = scheduler.coldPublisher(source, tick: tick)
        let output = scheduler.marbles(of: publisher.map(transform), frames: 9, tick: tick)
        return Drawing(name: "map", rows: [("source", source), (label, output)])
    }

    static func filter() -> Drawing {
        let scheduler = Scheduler()
        let source = "-a-B-c-D|"
        let publisher: AnyPublisher<String, Never> = scheduler.coldPublisher(source, tick: tick)
        let output = scheduler.marbles(of: publisher.filter { $0 == $0.uppercased() }, frames: 10, tick: tick)
        return Drawing(name: "filter", rows: [("source", source), ("filter { $0 is uppercase }", output)])
    }

    static func debounce() -> Drawing {
        let scheduler = Scheduler()
        let source = "-a-b-----c---|"
        let publisher: AnyPublisher<String, Never> = scheduler.coldPublisher(source, tick: tick)
        let output = scheduler.marbles(
            of: publisher.debounce(for: .milliseconds(300), scheduler: scheduler), frames: 16, tick: tick)
        return Drawing(name: "debounce", rows: [("source", source), ("debounce(for: 300 ms)", output)])
    }

    static func merge() -> Drawing {
        let scheduler = Scheduler()
        let (first, second) = ("a---b---|", "--x---y-z|")
        let left: AnyPublisher<String, Never> = scheduler.coldPublisher(first, tick: tick)
        let right: AnyPublisher<String, Never> = scheduler.coldPublisher(second, tick: tick)
        let output = scheduler.marbles(of: left.merge(with: right), frames: 12, tick: tick)
        return Drawing(name: "merge", rows: [("first", first), ("second", second), ("first.merge(with: second)", output)])
    }

    static let drawings: [@Sendable () -> Drawing] = [{ map() }, { filter() }, { debounce() }, { merge() }]

    static func file(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/marbles/\(name).svg")
    }

    static func svg(_ drawing: Drawing) -> String {
        MarbleSVG.render(title: drawing.name, rows: drawing.rows)
    }

    @Test(arguments: 0..<4)
    func theCommittedDiagramIsWhatTheOperatorDoes(_ index: Int) throws {
        let drawing = Self.drawings[index]()
        let fresh = Self.svg(drawing)
        if ProcessInfo.processInfo.environment["SLUICE_REGENERATE_MARBLES"] == "1" {
            try Data(fresh.utf8).write(to: Self.file(drawing.name))
        }
        let committed = try String(contentsOf: Self.file(drawing.name), encoding: .utf8)
        #expect(committed == fresh, "docs/marbles/\(drawing.name).svg differs from a fresh run: run docs/marbles/regenerate and review the change")
    }

    @Test func anOperatorSwappedForAnotherFailsTheCheck() throws {
        // map's picture, drawn with lowercased() in place of uppercased(): the check must see it.
        let swapped = Self.svg(Self.map({ $0.lowercased() }, label: "map { $0.uppercased() }"))
        let committed = try String(contentsOf: Self.file("map"), encoding: .utf8)
        #expect(committed != swapped)
    }

    @Test func recordedRunsAreTheDiagramsExpected() {
        #expect(Self.map().rows[1].diagram == "-A-B--C|")
        #expect(Self.filter().rows[1].diagram == "---B---D|")
        #expect(Self.debounce().rows[1].diagram == "------b-----c|")
        #expect(Self.merge().rows[2].diagram == "a-x-b-y-z|")
    }

    @Test func thePictureCarriesItsDiagramsAsTextAndFollowsTheColourScheme() {
        let svg = MarbleSVG.render(title: "a <title>", rows: [("source", "-a-(bc)-#")])
        #expect(svg.contains("<desc id=\"marble-desc\">source: -a-(bc)-#</desc>"))
        #expect(svg.contains("<title id=\"marble-title\">a &lt;title&gt;</title>"))
        #expect(svg.contains("@media (prefers-color-scheme: dark)"))
        #expect(svg.components(separatedBy: "<circle").count - 1 == 3)
        #expect(svg.contains("class=\"fail\""))
    }
}
