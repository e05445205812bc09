import Foundation

/// `JSONEncoder` produces `Data`, so publishers of `Encodable` values can `encode(encoder:)` with it.
extension JSONEncoder: TopLevelEncoder {}

/// `JSONDecoder` reads `Data`, so publishers of `Data` can `decode(type:decoder:)` with it.
extension JSONDecoder: TopLevelDecoder {}

/// `PropertyListEncoder` produces `Data`, so publishers of `Encodable` values can encode with it.
extension PropertyListEncoder: TopLevelEncoder {}

/// `PropertyListDecoder` reads `Data`, so publishers of `Data` can decode with it.
extension PropertyListDecoder: TopLevelDecoder {}
