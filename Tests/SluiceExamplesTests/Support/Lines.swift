/// Collects narration lines.
final class Lines {
    private(set) var all: [String] = []
    func append(_ line: String) { all.append(line) }
}
