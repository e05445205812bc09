import SluiceCore
import Testing

/// A toy top-level coder: encodes integers as their decimal text.
private struct TextEncoder: TopLevelEncoder {
    struct Unsupported: Error {}
    func encode<T: Encodable>(_ value: T) throws -> String {
        guard let value = value as? Int else { throw Unsupported() }
        return String(value)
    }
}

private struct TextDecoder: TopLevelDecoder {
    struct Unsupported: Error {}
    func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        guard type == Int.self, let value = Int(text) as? T else { throw Unsupported() }
        return value
    }
}

@Suite("TopLevelEncoder and TopLevelDecoder")
struct TopLevelCodingTests {
    @Test func customCodersRoundTripThroughTheProtocols() throws {
        func roundTrip<E: TopLevelEncoder, D: TopLevelDecoder>(_ value: Int, _ encoder: E, _ decoder: D) throws -> Int
        where E.Output == D.Input {
            try decoder.decode(Int.self, from: try encoder.encode(value))
        }
        #expect(try roundTrip(42, TextEncoder(), TextDecoder()) == 42)
        #expect(try TextEncoder().encode(7) == "7")
        #expect(throws: TextDecoder.Unsupported.self) { try TextDecoder().decode(Int.self, from: "x") }
    }
}
