import NIOCore
@testable import SluiceHummingbird
import SluiceTesting
import Testing

/// The event-loop path's reading of a connection's first request line (which decides whether the
/// connection is a stream's), fed thousands of generated lines and random bytes, whole and cut
/// short (SluiceTesting's `SeededGenerator`: a failure names its case, and reruns).
@Suite struct FirstRequestLineTests {
    static func printable(_ count: Int, excluding: Set<UInt8> = [], using random: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let byte = UInt8.random(in: 0x21...0x7E, using: &random)
            if !excluding.contains(byte) { bytes.append(byte) }
        }
        return bytes
    }

    static func line(_ bytes: [UInt8]) -> FirstRequestLine { FirstRequestLine(of: ByteBuffer(bytes: bytes)) }

    @Test func generatedLinesAreReadAsTheirPathOrAsSomethingElseWhateverFollowsThem() {
        var random = SeededGenerator(seed: 48_094)
        var seen: [String: Int] = [:]
        for index in 0..<4_000 {
            let lineEnd: [UInt8] = Bool.random(using: &random) ? [13, 10] : [10]
            let path = [UInt8(ascii: "/")] + Self.printable(Int.random(in: 0...80, using: &random), excluding: [UInt8(ascii: "?")], using: &random)
            let query = Bool.random(using: &random) ? [UInt8(ascii: "?")] + Self.printable(Int.random(in: 0...60, using: &random), using: &random) : []
            let version = Array((["HTTP/1.1", "HTTP/1.0", "HTTP/2"].randomElement(using: &random)!).utf8)
            // What kind of line: a GET of a path, or one of the lines that are not.
            let kind = Int.random(in: 0...6, using: &random)
            var bytes: [UInt8]
            var expected: FirstRequestLine
            switch kind {
            case 0, 1, 2:
                bytes = Array("GET ".utf8) + path + query + [0x20] + version
                expected = .get(path: Substring(String(decoding: path, as: UTF8.self)))
            case 3:   // another method
                let method = ["POST", "HEAD", "get", "PUT", "OPTIONS", "GETS"].randomElement(using: &random)!
                bytes = Array("\(method) ".utf8) + path + query + [0x20] + version
                expected = .other
            case 4:   // a target that is not a path
                let target = ["*", "http://example.com/events", "events", ""].randomElement(using: &random)!
                bytes = Array("GET \(target) ".utf8) + version
                expected = .other
            case 5:   // a space too many, or too few
                bytes = Bool.random(using: &random)
                    ? Array("GET ".utf8) + path + query + [0x20, 0x20] + version
                    : Array("GET ".utf8) + path + query
                expected = .other
            default:  // no version, then more words
                bytes = Array("GET ".utf8) + path + query + [0x20] + version + Array(" extra".utf8)
                expected = .other
            }
            let whole = bytes + lineEnd
            let rest = Self.printable(Int.random(in: 0...200, using: &random), using: &random) + lineEnd   // the head's next lines
            #expect(Self.line(whole + rest) == expected, "case \(index): \(String(decoding: bytes, as: UTF8.self))")
            // Cut anywhere before its line feed, the same bytes are not a line yet.
            let cut = Int.random(in: 0..<(bytes.count + lineEnd.count), using: &random)
            #expect(Self.line(Array(whole.prefix(cut))) == .incomplete, "case \(index) cut at \(cut)")
            seen[kind <= 2 ? "get" : "other", default: 0] += 1
        }
        #expect(seen["get", default: 0] > 1_000 && seen["other", default: 0] > 1_000, "\(seen)")
    }

    @Test func randomBytesAreIncompleteWithoutALineFeedAndAGetOnlyWhenTheyBeginWithOne() {
        var random = SeededGenerator(seed: 48_095)
        var gets = 0
        for index in 0..<4_000 {
            var bytes = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if index % 4 == 0 { bytes = Array("GET /".utf8) + bytes }   // a start some of them share with a stream's request
            let read = Self.line(bytes)
            guard let end = bytes.firstIndex(of: 10) else {
                #expect(read == .incomplete, "case \(index)")
                continue
            }
            switch read {
            case .incomplete:
                Issue.record("case \(index): a line feed at \(end), read as incomplete")
            case .get(let path):
                gets += 1
                let line = bytes[..<end]
                #expect(line.starts(with: Array("GET /".utf8)), "case \(index)")
                #expect(line.filter { $0 == 0x20 }.count == 2, "case \(index)")
                #expect(path.hasPrefix("/") && !path.contains("?") && !path.contains(" "), "case \(index): \(path)")
            case .other:
                break
            }
        }
        #expect(gets > 0)
    }
}
