/// Draws marble diagrams (see ``MarbleDiagram`` for the notation) as SVG: one row per diagram,
/// labelled, one column per frame, time running left to right — a circle with its letter per
/// value, a bar where a stream finishes, a cross where it fails, a caret at a hot diagram's "now".
///
/// The picture reads in light and dark mode (its colours follow `prefers-color-scheme`), and
/// carries its diagrams as text for screen readers (`<title>`, `<desc>`). It is made of the
/// diagrams' text alone, so a diagram recorded from a run (``TestScheduler/marbles(of:frames:values:tick:)->String``)
/// draws the same picture until the operator's behaviour changes.
///
/// ```swift
/// let svg = MarbleSVG.render(title: "map", rows: [("source", "-a-b-c|"), ("map { $0.uppercased() }", "-A-B-C|")])
/// ```
public enum MarbleSVG {
    /// The SVG document for `rows`, each a label and a diagram, drawn one under another on one
    /// time axis, and `legend` under them, a line each (what a letter stands for, say:
    /// `"α = [a, b]"`). The text alternative holds the rows and the legend.
    public static func render(title: String, rows: [(label: String, diagram: String)], legend: [String] = []) -> String {
        let parsed = rows.map { row in
            let (marks, frames) = read(row.diagram)
            return (label: row.label, marks: marks, frames: frames)
        }
        let frames = max(1, parsed.map(\.frames).max() ?? 1)
        let labelWidth = 24 + 8 * (parsed.map(\.label.count).max() ?? 0)
        let (frameWidth, rowHeight, top) = (32, 52, 12)
        let legendLine = 20
        let width = max(labelWidth + (frames + 1) * frameWidth + 16, 16 + 8 * (legend.map(\.count).max() ?? 0))
        let height = top + rows.count * rowHeight + legend.count * legendLine + 8
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            role="img" aria-labelledby="marble-title marble-desc">
            <title id="marble-title">\(escape(title))</title>
            <desc id="marble-desc">\(escape((rows.map { "\($0.label): \($0.diagram)" } + legend).joined(separator: "; ")))</desc>
            <style>
            .axis { stroke: #444; stroke-width: 1.5; fill: none; }
            .value { fill: #e8f0fe; stroke: #1a56c4; stroke-width: 1.5; }
            .letter { fill: #102a5c; font: 600 13px ui-monospace, monospace; text-anchor: middle; }
            .label { fill: #222; font: 13px ui-monospace, monospace; }
            .end { stroke: #222; stroke-width: 3; }
            .fail { stroke: #c0281e; stroke-width: 3; }
            .now { fill: #888; }
            @media (prefers-color-scheme: dark) {
              .axis { stroke: #bbb; } .value { fill: #1f2d4a; stroke: #7aa7ff; } .letter { fill: #e6eeff; }
              .label { fill: #ddd; } .end { stroke: #eee; } .fail { stroke: #ff7a70; } .now { fill: #aaa; }
            }
            </style>

            """
        for (index, row) in parsed.enumerated() {
            let y = top + index * rowHeight + rowHeight / 2
            let start = labelWidth, end = labelWidth + (frames + 1) * frameWidth
            svg += "<text class=\"label\" x=\"8\" y=\"\(y + 4)\">\(escape(row.label))</text>\n"
            svg += "<path class=\"axis\" d=\"M\(start) \(y) H\(end) m-7 -5 l7 5 l-7 5\"/>\n"
            for mark in row.marks {
                let x = start + frameWidth / 2 + mark.frame * frameWidth + mark.offset * 9
                switch mark.kind {
                case .value(let letter):
                    svg += "<circle class=\"value\" cx=\"\(x)\" cy=\"\(y)\" r=\"11\"/>"
                    svg += "<text class=\"letter\" x=\"\(x)\" y=\"\(y + 4)\">\(escape(String(letter)))</text>\n"
                case .finished:
                    svg += "<path class=\"end\" d=\"M\(x) \(y - 12) V\(y + 12)\"/>\n"
                case .failure:
                    svg += "<path class=\"fail\" d=\"M\(x - 8) \(y - 8) l16 16 m0 -16 l-16 16\"/>\n"
                case .now:
                    svg += "<path class=\"now\" d=\"M\(x - frameWidth / 2) \(y + 6) l-6 10 h12 z\"/>\n"
                }
            }
        }
        for (index, line) in legend.enumerated() {
            let y = top + rows.count * rowHeight + index * legendLine + 14
            svg += "<text class=\"label\" x=\"8\" y=\"\(y)\">\(escape(line))</text>\n"
        }
        return svg + "</svg>\n"
    }

    private enum Kind {
        case value(Character), finished, failure, now
    }

    /// The marks of `diagram` — each with its frame (counted from the diagram's first character, a
    /// hot diagram's past included) and its place within a group — and how many frames it spans.
    private static func read(_ diagram: String) -> (marks: [(frame: Int, offset: Int, kind: Kind)], frames: Int) {
        var marks: [(frame: Int, offset: Int, kind: Kind)] = []
        var frame = 0
        var group: Int?
        for character in diagram where character != " " {
            switch character {
            case "(": group = 0; continue
            case ")": group = nil
            case "-": break
            case "^": marks.append((frame, 0, .now)); continue
            case "|": marks.append((frame, group ?? 0, .finished))
            case "#": marks.append((frame, group ?? 0, .failure))
            default: marks.append((frame, group ?? 0, .value(character)))
            }
            if let inGroup = group {
                group = inGroup + 1
            } else {
                frame += 1
            }
        }
        return (marks, frame)
    }

    private static let entities: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"]

    /// `text` with the characters XML gives a meaning written as entities.
    private static func escape(_ text: String) -> String {
        text.map { entities[$0] ?? String($0) }.joined()
    }
}
