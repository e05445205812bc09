import SluiceCore

/// Why the toy coders fail.
struct ToyCodingError: Error, Equatable {
    var input: String
}

/// A toy `TopLevelEncoder`: encodes a value as its description, and throws for `-1` (so a test
/// can make encoding fail on a chosen value).
struct ToyEncoder: TopLevelEncoder {
    func encode<T: Encodable>(_ value: T) throws -> String {
        let text = String(describing: value)
        if text == "-1" { throw ToyCodingError(input: text) }
        return text
    }
}

/// A toy `TopLevelDecoder`: decodes an `Int` or a `String` from text, and throws for text that is
/// not an `Int` when an `Int` is asked for.
struct ToyDecoder: TopLevelDecoder {
    func decode<T: Decodable>(_ type: T.Type, from input: String) throws -> T {
        if T.self == Int.self, let value = Int(input) { return value as! T }
        if T.self == String.self { return input as! T }
        throw ToyCodingError(input: input)
    }
}
