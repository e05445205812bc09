import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SluiceEventSource
import Testing
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

/// The client's readers fed thousands of generated and hostile inputs: the SSE parser directly, in
/// random pieces, and the module's own HTTP client over real sockets, against a server that
/// answers each request with a generated stream or with bytes no server should send. Seeded: a
/// failure names its case, and reruns the same.
@Suite("Hostile peers", .timeLimit(.minutes(5)))
struct HostilePeerTests {
    /// SplitMix64, as SluiceTesting's `SeededGenerator` (which these tests cannot use on Apple's
    /// systems, where they run against Apple's Combine without SluiceTesting).
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What a stream's event is, as a client sees it.
    struct Expected: Equatable, CustomStringConvertible {
        let id: String
        let event: String
        let data: String
        var description: String { "[\(id)|\(event)|\(data.prefix(30))]" }
    }

    static let pieces = ["a", "Z", "0", " ", ":", "é", "→", "😀", "{\"k\":1}", "data", "id", "\t", "x: y"]

    static func text(_ random: inout Seeded, atMost: Int = 8) -> String {
        (0..<Int.random(in: 0...atMost, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// A stream as a server could write it — comments, ids, event names, retries, several data lines,
    /// all in one of the three line ends — and the events the standard makes of it.
    static func generatedStream(_ random: inout Seeded) -> (bytes: [UInt8], events: [Expected]) {
        let end = ["\n", "\r\n", "\r"].randomElement(using: &random)!
        var stream = Bool.random(using: &random) ? "\u{FEFF}" : ""
        var events: [Expected] = []
        var lastID = ""
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            var data: [String] = []
            var name = "message"
            if Int.random(in: 0..<4, using: &random) == 0 { stream += ":" + text(&random) + end }
            if Bool.random(using: &random) {
                let id = "e-\(Int.random(in: 0...999, using: &random))"
                stream += "id: \(id)" + end
                lastID = id
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                name = "n\(Int.random(in: 0...9, using: &random))"
                stream += "event:\(name)" + end
            }
            if Int.random(in: 0..<5, using: &random) == 0 { stream += "retry: \(Int.random(in: 0...5, using: &random))" + end }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let value = text(&random)
                data.append(value)
                // One space after the colon is the separator's: a value that begins with one needs it.
                stream += (value.hasPrefix(" ") || Bool.random(using: &random) ? "data: " : "data:") + value + end
            }
            stream += end
            if !data.isEmpty { events.append(Expected(id: lastID, event: name, data: data.joined(separator: "\n"))) }
        }
        if Bool.random(using: &random) { stream += "data: never dispatched" }   // an event the stream's end cuts off
        return (Array(stream.utf8), events)
    }

    static func parse(_ bytes: [UInt8], cuts: [Int]) -> [Expected] {
        var parser = EventStreamParser()
        var events: [Expected] = []
        var start = 0
        for end in cuts.sorted() + [bytes.count] where end >= start {
            parser.append(bytes[start..<end])
            start = end
            while let message = parser.next() { events.append(Expected(id: message.id, event: message.event, data: message.data)) }
        }
        return events
    }

    static func cuts(_ count: Int, _ random: inout Seeded) -> [Int] {
        (0..<Int.random(in: 0...8, using: &random)).map { _ in Int.random(in: 0...count, using: &random) }
    }

    @Test func generatedStreamsParseToTheirEventsInAnyPieces() {
        var random = Seeded(state: 47_001)
        var events = 0
        for index in 0..<3_000 {
            let (bytes, expected) = Self.generatedStream(&random)
            let parsed = Self.parse(bytes, cuts: Self.cuts(bytes.count, &random))
            #expect(parsed == expected, "case \(index): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            events += expected.count
        }
        #expect(events > 5_000)
    }

    @Test func randomBytesParseTheSameInAnyPieces() {
        var random = Seeded(state: 47_002)
        let alphabet: [UInt8] = Array("\r\n:data id event retry 0123 ".utf8) + [0xEF, 0xBB, 0xBF, 0x00, 0xFF, 0xC3]
        for index in 0..<3_000 {
            let bytes = (0..<Int.random(in: 0...600, using: &random)).map { _ in
                Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            #expect(Self.parse(bytes, cuts: []) == Self.parse(bytes, cuts: Self.cuts(bytes.count, &random)), "case \(index)")
        }
    }

    /// What a server answers one request with: bytes, then it closes.
    enum Answer {
        case stream([UInt8], [Expected])
        case hostile([UInt8], String)
    }

    /// Answers no server should send, each a few kinds drawn at random.
    static func hostileAnswer(_ random: inout Seeded) -> [UInt8] {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        let noise = (0..<Int.random(in: 0...3_000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return noise   // not HTTP at all
        case 1: return Array(("HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "h", count: Int.random(in: 1...200_000, using: &random))).utf8)
        case 2: return Array((String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: Int.random(in: 1...2_000, using: &random)) + head + "\r\ndata: after\n\n").utf8)
        case 3: return Array((head + "Transfer-Encoding: chunked\r\n\r\n" + ["FFFFFFFFFFFFFFFFFFFFFFFF", "-1", "zz", "7fffffffffffffff"].randomElement(using: &random)! + "\r\ndata: x\n\n").utf8)
        case 4: return Array((head + "\r\n").utf8) + noise   // invalid UTF-8 and NULs in the stream
        case 5: return Array((head + "\r\ndata: " + String(repeating: "d", count: 70_000) + "\n\n").utf8)   // over the event size bound
        case 6: return Array((head + "Content-Length: " + ["-5", "99999999999999999999", "abc"].randomElement(using: &random)! + "\r\n\r\ndata: y\n\n").utf8)
        case 7: return Array(("HTTP/1.1 " + ["999 What", "2 X", "", "200"].randomElement(using: &random)! + "\r\n\r\n").utf8) + noise
        case 8: return Array((head + "Transfer-Encoding: chunked\r\n\r\n5\r\ndata:\r\n" + "3\r\n x\n\r\n").utf8) + noise   // a chunk not ended as said
        default: return Array(head.utf8) + noise   // a head that never ends
        }
    }

    @Test func theOwnHTTPClientTakesGeneratedStreamsWholeAndSurvivesHostileAnswers() async throws {
        var random = Seeded(state: 47_003)
        let answers: [Answer] = (0..<1_200).map { index in
            if index % 2 == 0 {
                let (bytes, events) = Self.generatedStream(&random)
                let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                    + (Bool.random(using: &random) ? "Transfer-Encoding: chunked\r\n\r\n" : "Connection: close\r\n\r\n")
                let body = head.contains("chunked") ? Self.chunked(bytes, &random) : bytes
                return .stream(Array(head.utf8) + body, events)
            }
            return .hostile(Self.hostileAnswer(&random), "hostile")
        }
        let firstRequests = Locked<Set<Int>>([])
        let server = try LoopbackServer { connection in
            let path = connection.request.path
            guard let index = Int(path.dropFirst("/case/".count)), answers.indices.contains(index),
                  firstRequests.withLock({ $0.insert(index).inserted }) else {
                return connection.respond(status: 500, reason: "Again")   // a reconnection: a failed attempt, the client gives up
            }
            switch answers[index] {
            case .stream(let bytes, _), .hostile(let bytes, _): connection.write(bytes)
            }
            connection.close()
        }
        defer { server.stop() }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(1), jitter: 0,
                                                      maximumAttempts: 1, recognizesSluiceControlEvents: false,
                                                      maximumEventSize: 64 << 10)
        for batch in stride(from: 0, to: answers.count, by: 40) {
            await withTaskGroup(of: Void.self) { group in
                for index in batch..<min(batch + 40, answers.count) {
                    group.addTask {
                        let subscriber = RecordingSubscriber()
                        Reader.ownClient.source(URLRequest(url: server.url("/case/\(index)")), configuration).subscribe(subscriber)
                        let ended = await subscriber.completions.wait(limit: 60) { !$0.isEmpty }
                        #expect(ended, "case \(index) never ended")
                        subscriber.cancel()
                        if case .stream(_, let expected) = answers[index] {
                            let got = subscriber.events.values.compactMap(\.message).map { Expected(id: $0.id, event: $0.event, data: $0.data) }
                            #expect(got == expected, "case \(index)")
                        } else {
                            let sizes = subscriber.events.values.map { $0.message?.data.utf8.count ?? 0 }
                            #expect(sizes.allSatisfy { $0 <= 64 << 10 }, "case \(index): \(sizes.max() ?? 0) bytes")
                        }
                    }
                }
            }
        }
    }

    /// `bytes` as a chunked body, in chunks of random sizes, with its last chunk.
    static func chunked(_ bytes: [UInt8], _ random: inout Seeded) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let size = min(bytes.count - start, Int.random(in: 1...64, using: &random))
            out += Array(String(size, radix: 16).utf8) + [13, 10] + bytes[start..<start + size] + [13, 10]
            start += size
        }
        return out + Array("0\r\n\r\n".utf8)
    }

    /// Frames no server should send after its `101`: random bytes, lengths that overflow or pass
    /// the message bound, masked frames, reserved opcodes and bits, control frames too long,
    /// continuations of nothing, invalid UTF-8 in text.
    static func hostileFrames(_ random: inout Seeded) -> [UInt8] {
        let noise = (0..<Int.random(in: 0...2_000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let event = LoopbackServer.Connection.event(Int.random(in: 1...9, using: &random))
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return noise
        case 1: return event + [0x81, 127, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]   // a length of 2^64 − 1
        case 2: return [0x81, 127, 0, 0, 0, 0, 0, 0x10, 0, 0] + noise   // 1 MiB announced, over the bound
        case 3: return [0x81, 0x85, 1, 2, 3, 4] + Array("hello".utf8)   // masked, from a server
        case 4: return [0x83, 0x01, 0x41] + event   // a reserved opcode
        case 5: return [0xC1, 0x01, 0x41]   // RSV1 without an extension
        case 6: return [0x89, 126, 0x01, 0x00] + Array(repeating: 0, count: 256)   // a ping longer than 125
        case 7: return [0x80, 0x02, 0x41, 0x42] + event   // a continuation of nothing
        default: return [0x81, 0x04, 0xFF, 0xFE, 0xC3, 0x28] + noise   // text that is not UTF-8
        }
    }

    @Test func theWebSocketReaderSurvivesHostileFrames() async throws {
        var random = Seeded(state: 47_004)
        let answers = (0..<600).map { _ in Self.hostileFrames(&random) }
        let firstRequests = Locked<Set<Int>>([])
        let server = try LoopbackServer { connection in
            let path = connection.request.path
            guard let index = Int(path.dropFirst("/case/".count).prefix { $0.isNumber }), answers.indices.contains(index),
                  firstRequests.withLock({ $0.insert(index).inserted }) else {
                return connection.respond(status: 500, reason: "Again")
            }
            guard connection.acceptWebSocket() else { return connection.close() }
            connection.write(answers[index])
            connection.close()
        }
        defer { server.stop() }
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(1), jitter: 0,
                                                      maximumAttempts: 1, maximumEventSize: 64 << 10)
        for batch in stride(from: 0, to: answers.count, by: 40) {
            await withTaskGroup(of: Void.self) { group in
                for index in batch..<min(batch + 40, answers.count) {
                    group.addTask {
                        let subscriber = RecordingSubscriber()
                        EventSocket(url: server.webSocketURL("/case/\(index)"), configuration: configuration).subscribe(subscriber)
                        #expect(await subscriber.completions.wait(limit: 60) { !$0.isEmpty }, "case \(index) never ended")
                        subscriber.cancel()
                        let sizes = subscriber.events.values.map { $0.message?.data.utf8.count ?? 0 }
                        #expect(sizes.allSatisfy { $0 <= 64 << 10 }, "case \(index)")
                    }
                }
            }
        }
    }
}
