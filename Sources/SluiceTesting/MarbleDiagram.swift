import SluiceCore

/// A timeline of publisher events written as text, one character per frame of virtual time:
///
/// | text | meaning |
/// | --- | --- |
/// | `-` | a frame in which nothing happens |
/// | `a`, `1`, … | a value in this frame (looked up in the diagram's `values`, or the character itself when `Output` is `String` or `Character`) |
/// | `\|` | the publisher finishes in this frame |
/// | `#` | the publisher fails in this frame, with the diagram's `error` |
/// | `(ab)` | several events in one frame, in order |
/// | `^` | (hot publishers) the frame that is "now" when the publisher is made; what comes before has already happened |
/// | space | nothing: for lining diagrams up |
///
/// `"-a-b--c|"` is a value `a` in frame 1, `b` in frame 3, `c` in frame 6, then `.finished` in
/// frame 7. How long a frame lasts is up to whoever plays or records the diagram (see
/// ``TestScheduler/coldPublisher(_:values:error:tick:)`` and
/// ``TestScheduler/expect(_:emits:values:error:tick:)``).
public struct MarbleDiagram<Output, Failure: Error> {
    /// One event of the timeline.
    public enum Event {
        /// A value.
        case value(Output)
        /// The completion.
        case completion(Subscribers.Completion<Failure>)
    }

    /// The events, each with its frame (frame 0 is the first character, or the `^`), in order.
    public let events: [(frame: Int, event: Event)]

    /// How many frames the diagram spans (up to and including its last character).
    public let frameCount: Int

    /// Reads `text`. Values are looked up in `values`; a character that is not there stands for
    /// itself when `Output` is `String` or `Character`, and is a programmer error otherwise, as is
    /// `#` without an `error`.
    public init(_ text: String, values: [Character: Output] = [:], error: Failure? = nil) {
        var events: [(frame: Int, event: Event)] = []
        var frame = 0
        var origin = 0
        var inGroup = false
        for character in text {
            switch character {
            case " ":
                continue
            case "^":
                origin = frame
                events.removeAll()
            case "(":
                precondition(!inGroup, "marble diagram \"\(text)\": groups do not nest")
                inGroup = true
                continue
            case ")":
                precondition(inGroup, "marble diagram \"\(text)\": ')' without '('")
                inGroup = false
            case "-":
                break
            case "|":
                events.append((frame - origin, .completion(.finished)))
            case "#":
                guard let error else { preconditionFailure("marble diagram \"\(text)\": '#' needs an error to fail with") }
                events.append((frame - origin, .completion(.failure(error))))
            default:
                events.append((frame - origin, .value(Self.value(of: character, in: values, diagram: text))))
            }
            if !inGroup { frame += 1 }
        }
        precondition(!inGroup, "marble diagram \"\(text)\": '(' without ')'")
        self.events = events
        frameCount = frame - origin
    }

    private static func value(of character: Character, in values: [Character: Output], diagram: String) -> Output {
        if let value = values[character] { return value }
        if let value = String(character) as? Output { return value }
        if let value = character as? Output { return value }
        preconditionFailure("marble diagram \"\(diagram)\": no value for '\(character)' (pass it in values:)")
    }
}

extension MarbleDiagram where Output: Equatable {
    /// Writes recorded events as a diagram: each frame's events in order, `(…)` around a frame
    /// with several, `-` for a frame with none; nothing after the completion. A value is written
    /// as its key in `values`, or as itself when its description is one character, or `?`.
    static func render(frames: [[Event]], values: [Character: Output]) -> String {
        var text = ""
        for events in frames {
            let symbols = events.map { event -> String in
                switch event {
                case .value(let value):
                    if let key = values.first(where: { $0.value == value })?.key { return String(key) }
                    let described = String(describing: value)
                    return described.count == 1 ? described : "?"
                case .completion(.finished): return "|"
                case .completion(.failure): return "#"
                }
            }
            switch symbols.count {
            case 0: text += "-"
            case 1: text += symbols[0]
            default: text += "(" + symbols.joined() + ")"
            }
            if events.contains(where: { if case .completion = $0 { true } else { false } }) { break }
        }
        return text
    }
}

/// What ``TestScheduler/expect(_:emits:values:error:tick:)`` throws when a publisher's events
/// differ from the expected diagram: both diagrams, lined up, with a caret under the first frame
/// that differs.
public struct MarbleMismatch: Error, CustomStringConvertible {
    /// The diagram the publisher was expected to produce.
    public let expected: String
    /// The diagram it produced.
    public let actual: String

    /// Both diagrams, one above the other, and where they part.
    public var description: String {
        let a = Array(expected.filter { $0 != " " })
        let b = Array(actual)
        let firstDifference = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        return """
            the publisher's events differ from the marble diagram, from character \(firstDifference):
              expected: \(String(a))
              actual:   \(String(b))
                        \(String(repeating: " ", count: firstDifference))^
            """
    }
}
