@testable import SluiceFeed
import SluiceTesting
import Testing

/// The event-loop path's reader of request heads, fed thousands of generated heads and random
/// bytes, whole and in random pieces (SluiceTesting's `SeededGenerator`: a failure names its case,
/// and reruns).
@Suite struct RequestHeadScannerTests {
    /// `bytes` scanned in pieces cut at `cuts`: the outcome, a completion's offset made absolute.
    static func scan(_ bytes: [UInt8], cuts: [Int], maximumLine: Int, maximumHead: Int) -> RequestHeadScanner.Outcome {
        var scanner = RequestHeadScanner(maximumLine: maximumLine, maximumHead: maximumHead)
        var start = 0
        for end in cuts.sorted() + [bytes.count] where end >= start {
            switch scanner.scan(bytes[start..<end]) {
            case .incomplete: start = end
            case .complete(let offset): return .complete(endingAt: start + offset)
            case let other: return other
            }
        }
        return .incomplete
    }

    static func randomCuts(_ count: Int, using random: inout SeededGenerator) -> [Int] {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in Int.random(in: 0...count, using: &random) }
    }

    static func printable(_ count: Int, using random: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0x20...0x7E, using: &random) }
    }

    @Test func generatedHeadsAreTakenOrRefusedByTheirBoundsInAnyPieces() {
        var random = SeededGenerator(seed: 46_048)
        var seen: [String: Int] = [:]
        for index in 0..<4_000 {
            let maximumLine = Int.random(in: 16...600, using: &random)
            let maximumHead = Int.random(in: 64...4_000, using: &random)
            let lineEnd: [UInt8] = Bool.random(using: &random) ? [13, 10] : [10]
            let leading = Array(repeating: lineEnd, count: Int.random(in: 0...2, using: &random)).flatMap { $0 }
            let line = Self.printable(Int.random(in: 1...700, using: &random), using: &random)
            var head = leading + line + lineEnd
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                head += Self.printable(Int.random(in: 1...300, using: &random), using: &random) + lineEnd
            }
            head += lineEnd
            let trailing = Self.printable(Int.random(in: 0...50, using: &random), using: &random)   // a body, or the next request
            let expected: RequestHeadScanner.Outcome
            if line.count > maximumLine {
                // Found while reading the line, unless the head's bound comes first.
                expected = leading.count + min(line.count, maximumLine + 2) > maximumHead ? .headTooLarge : .lineTooLong
            } else if head.count > maximumHead {
                expected = .headTooLarge
            } else {
                expected = .complete(endingAt: head.count - 1)
            }
            let bytes = head + trailing
            let outcome = Self.scan(bytes, cuts: Self.randomCuts(bytes.count, using: &random), maximumLine: maximumLine, maximumHead: maximumHead)
            #expect(outcome == expected, "case \(index): line \(line.count)/\(maximumLine), head \(head.count)/\(maximumHead)")
            let kind = String("\(expected)".prefix { $0 != "(" })
            seen[kind, default: 0] += 1
        }
        // The generator reaches every outcome, often.
        #expect(seen.count == 3 && seen.values.allSatisfy { $0 > 300 }, "\(seen)")
    }

    @Test func randomBytesNeverPassTheBoundsAndPiecesNeverChangeTheOutcome() {
        var random = SeededGenerator(seed: 48_003)
        let alphabet: [UInt8] = [10, 13, 10, 13, 0x20, 0x41, 0x3A, 0x00, 0xFF, 0x80]
        for index in 0..<4_000 {
            let maximumLine = Int.random(in: 1...200, using: &random)
            let maximumHead = Int.random(in: 1...800, using: &random)
            let bytes = (0..<Int.random(in: 0...1_200, using: &random)).map { _ in
                Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            let whole = Self.scan(bytes, cuts: [], maximumLine: maximumLine, maximumHead: maximumHead)
            let pieces = Self.scan(bytes, cuts: Self.randomCuts(bytes.count, using: &random), maximumLine: maximumLine, maximumHead: maximumHead)
            #expect(whole == pieces, "case \(index)")
            switch whole {
            case .complete(let end):
                #expect(end < maximumHead, "case \(index)")
                #expect(bytes[end] == 10 && bytes[..<end].contains(10), "case \(index)")   // an empty line after a line
            case .incomplete:
                #expect(bytes.count <= maximumHead, "case \(index)")
            case .lineTooLong, .headTooLarge:
                break
            }
        }
    }

    @Test func crafted() {
        func outcome(_ text: String, line: Int = 100, head: Int = 1_000) -> RequestHeadScanner.Outcome {
            var scanner = RequestHeadScanner(maximumLine: line, maximumHead: head)
            return scanner.scan(Array(text.utf8))
        }
        #expect(outcome("GET / HTTP/1.1\r\n\r\n") == .complete(endingAt: 17))
        #expect(outcome("GET / HTTP/1.1\n\n") == .complete(endingAt: 15))
        #expect(outcome("\r\n\r\nGET / HTTP/1.1\r\nA: b\r\n\r\n") == .complete(endingAt: 27))   // empty lines first are skipped
        #expect(outcome("GET / HTTP/1.1\r\nA: b\r\r\n") == .incomplete)   // "\r\r\n" ends a line, not the head
        #expect(outcome("GET / HTTP/1.1\r\n\r\r\n") == .incomplete)
        #expect(outcome(String(repeating: "a", count: 100) + "\r\n\r\n") == .complete(endingAt: 103))   // at the bound
        #expect(outcome(String(repeating: "a", count: 101) + "\r\n\r\n") == .lineTooLong)
        #expect(outcome(String(repeating: "a", count: 102)) == .lineTooLong)   // said before the line ends
        #expect(outcome(String(repeating: "\r\n", count: 600)) == .headTooLarge)   // a flood of empty lines
        #expect(outcome("GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 200)) == .headTooLarge)
    }
}
