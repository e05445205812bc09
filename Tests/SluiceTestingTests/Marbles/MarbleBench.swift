import SluiceCore
import SluiceTesting

/// The error the sources of the operator pictures fail with (`#`).
struct MarbleError: Error, Equatable {}

/// One operator picture of `docs/marbles/`: its file name, its family (a page of the
/// documentation site), the operators it shows, and how to set up the run it is drawn from.
struct OperatorMarble: Sendable {
    let name: String
    let family: String
    /// The entry points of Apple's API whose behaviour the picture shows, as DocC paths in
    /// SluiceCore (`Publisher/map(_:)`): their pages on the documentation site show it, every
    /// overload of each.
    let operators: [String]
    let setUp: @Sendable (MarbleBench) -> Void

    /// The picture's rows — the inputs as given, the outputs as recorded from a run of the real
    /// operators — and its legend: what each Greek letter stands for (a value whose description
    /// is longer than one character).
    func drawing() -> (inputs: [(label: String, diagram: String)], outputs: [(label: String, diagram: String)], legend: [String]) {
        // A first run finds the values the outputs produce; the second draws them, the long ones
        // as letters. Both run the same operators on fresh schedulers: virtual time is repeatable.
        let survey = MarbleBench()
        setUp(survey)
        var letters: [Character: String] = [:]
        var legend: [String] = []
        for value in survey.values() where value.count > 1 && !letters.values.contains(value) {
            let letter = MarbleBench.letters[letters.count]
            letters[letter] = value
            legend.append("\(letter) = \(value)")
        }
        let bench = MarbleBench()
        setUp(bench)
        return (bench.inputs, bench.record(values: letters), legend)
    }

    /// The SVG document of the picture.
    func svg() -> String {
        let (inputs, outputs, legend) = drawing()
        return MarbleSVG.render(title: name, rows: inputs + outputs, legend: legend)
    }
}

/// Where an operator picture is set up: sources played from marble diagrams on a
/// `TestScheduler`, the operators applied to them, and the outputs to record.
final class MarbleBench {
    typealias Source = AnyPublisher<String, MarbleError>
    /// One frame of a diagram.
    static let tick = VirtualTime.Stride.milliseconds(100)
    /// The letters that stand for values longer than one character, in order of appearance.
    static let letters = Array("αβγδεζηθικλμνξοπρστυφχψω")

    let scheduler = TestScheduler<VirtualTime, Never>()
    private(set) var inputs: [(label: String, diagram: String)] = []
    private var outputs: [(label: String, publisher: AnyPublisher<String, any Error>)] = []
    private var kept: [AnyCancellable] = []
    /// Frames recorded past the longest input, for what an operator emits after its sources.
    var extraFrames = 3

    /// `frames` frames of virtual time.
    static func frames(_ frames: Int) -> VirtualTime.Stride { .milliseconds(100 * frames) }

    /// A source that plays `diagram` for each subscriber from when it subscribes; drawn as an
    /// input row.
    func cold(_ label: String, _ diagram: String) -> Source {
        cold(label, diagram, values: [Character: String]())
    }

    /// A cold source of other values: `values` names them. `first` draws its row above those
    /// set up before it (a source whose values are the other inputs).
    func cold<Output>(_ label: String, _ diagram: String, values: [Character: Output], first: Bool = false)
        -> AnyPublisher<Output, MarbleError>
    {
        inputs.insert((label, diagram), at: first ? 0 : inputs.count)
        return scheduler.coldPublisher(diagram, values: values, error: MarbleError(), tick: Self.tick)
    }

    /// A cold source that cannot fail (for operators that take only those, as `makeConnectable()`).
    func coldNeverFailing(_ label: String, _ diagram: String) -> AnyPublisher<String, Never> {
        inputs.append((label, diagram))
        return scheduler.coldPublisher(diagram, tick: Self.tick)
    }

    /// A source that plays `diagram` once from frame 0, whoever listens; drawn as an input row.
    func hot(_ label: String, _ diagram: String) -> Source {
        inputs.append((label, diagram))
        return scheduler.hotPublisher(diagram, error: MarbleError(), tick: Self.tick)
    }

    /// Records `publisher` as an output row: each value as its description.
    func output<P: Publisher>(_ label: String, _ publisher: P) {
        outputs.append((label, publisher.map { String(describing: $0) }.mapError { $0 as any Error }.eraseToAnyPublisher()))
    }

    /// `publisher`, subscribed to only at `frame` (a `Just` delayed that long, flat-mapped into it).
    func subscribing(atFrame frame: Int, to publisher: Source) -> Source {
        Just(()).setFailureType(to: MarbleError.self)
            .delay(for: Self.frames(frame), scheduler: scheduler)
            .flatMap { _ in publisher }
            .eraseToAnyPublisher()
    }

    /// Runs `action` at `frame`, keeping what it returns until the run ends.
    func at(frame: Int, _ action: @escaping () -> any Cancellable) {
        scheduler.schedule(after: scheduler.now.advanced(by: Self.frames(frame)), tolerance: .zero, options: nil) { [self] in
            kept.append(AnyCancellable(action()))
        }
    }

    private var frameCount: Int {
        (inputs.map { MarbleDiagram<String, MarbleError>($0.diagram, error: MarbleError()).frameCount }.max() ?? 0) + extraFrames
    }

    /// Every value the outputs produce in a run, as descriptions, in order of appearance.
    func values() -> [String] {
        let recorders = outputs.map { _ in TestSubscriber<String, any Error>() }
        for (output, recorder) in zip(outputs, recorders) { output.publisher.subscribe(recorder) }
        scheduler.advance(by: Self.frames(frameCount))
        return recorders.flatMap(\.values)
    }

    /// The output rows, recorded from one run; values found in `values` written as their letters.
    func record(values: [Character: String]) -> [(label: String, diagram: String)] {
        let diagrams = scheduler.marbles(of: outputs.map(\.publisher), frames: frameCount, values: values, tick: Self.tick)
        return zip(outputs, diagrams).map { ($0.label, $1) }
    }
}
