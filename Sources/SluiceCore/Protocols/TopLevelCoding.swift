/// A type that defines methods for encoding a value into a top-level representation.
///
/// `encode(encoder:)` accepts any such encoder; the `Sluice` module makes Foundation's
/// `JSONEncoder` conform.
public protocol TopLevelEncoder {
    /// The type this encoder produces.
    associatedtype Output
    /// Encodes an instance of the indicated type.
    func encode<T: Encodable>(_ value: T) throws -> Output
}

/// A type that defines methods for decoding a value from a top-level representation.
///
/// `decode(type:decoder:)` accepts any such decoder; the `Sluice` module makes Foundation's
/// `JSONDecoder` conform.
public protocol TopLevelDecoder {
    /// The type this decoder accepts.
    associatedtype Input
    /// Decodes an instance of the indicated type.
    func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}
