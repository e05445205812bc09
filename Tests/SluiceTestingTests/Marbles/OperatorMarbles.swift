import Foundation
import SluiceCore

/// Every operator picture of `docs/marbles/`, family by family: the table the drift check and the
/// documentation site both read from.
enum OperatorMarbles {
    static let all: [OperatorMarble] = mapping + filtering + reducing + selecting + sequence + combining
        + flattening + timing + errors + sharing + pipelines

    /// Whole pipelines, drawn for the articles.
    static let pipelines: [OperatorMarble] = [
        OperatorMarble(name: "searchBox", family: "Pipelines", operators: []) { bench in
            // Keystrokes: the text typed so far; a lookup answers 200 ms after it is asked.
            let typed: [Character: String] = ["c": "c", "u": "cu", "r": "cur", "s": "s", "h": "sh"]
            let found = ["cur": ["Curly"], "sh": ["Shemp"]]
            let query = bench.cold("keys typed", "-cur------sh------|", values: typed)
            let debounced = query.debounce(for: MarbleBench.frames(3), scheduler: bench.scheduler).removeDuplicates()
            bench.output("debounce, removeDuplicates", debounced)
            bench.output("… flatMap { search($0) }", debounced.flatMap { text in
                Just(found[text, default: []]).setFailureType(to: MarbleError.self)
                    .delay(for: MarbleBench.frames(2), scheduler: bench.scheduler)
            })
        },
    ]

    /// What the documentation site needs to place the pictures, as JSON: each picture's name, its
    /// family and the DocC paths of the operators whose pages show it.
    static func index() throws -> Data {
        let entries = all.map { ["name": $0.name, "family": $0.family, "operators": $0.operators] as [String: Any] }
        return try JSONSerialization.data(withJSONObject: entries, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// The picture named `name`.
    static func named(_ name: String) -> OperatorMarble {
        guard let marble = all.first(where: { $0.name == name }) else { preconditionFailure("no operator picture \(name)") }
        return marble
    }
}
