import Foundation
import Sluice
import Testing

private struct Point: Codable, Equatable {
    var x: Int
    var y: Int
}

@Suite("TopLevelCoders")
struct TopLevelCodersTests {
    fileprivate func roundTrip<E: TopLevelEncoder, D: TopLevelDecoder>(_ value: Point, _ encoder: E, _ decoder: D) throws -> Point
    where E.Output == D.Input {
        try decoder.decode(Point.self, from: try encoder.encode(value))
    }

    @Test func jsonCodersAreTopLevelCoders() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data: Data = try encoder.encode(Point(x: 1, y: 2))  // `Output` is `Data`
        #expect(String(decoding: data, as: UTF8.self) == #"{"x":1,"y":2}"#)
        #expect(try roundTrip(Point(x: 3, y: -4), encoder, JSONDecoder()) == Point(x: 3, y: -4))
    }

    @Test func propertyListCodersAreTopLevelCoders() throws {
        #expect(try roundTrip(Point(x: 5, y: 6), PropertyListEncoder(), PropertyListDecoder()) == Point(x: 5, y: 6))
    }

    @Test func decodingMalformedDataThrows() {
        func decode<D: TopLevelDecoder>(_ decoder: D, _ input: D.Input) throws -> Point {
            try decoder.decode(Point.self, from: input)
        }
        #expect(throws: DecodingError.self) { try decode(JSONDecoder(), Data("{\"x\":1}".utf8)) }
        #expect(throws: (any Error).self) { try decode(PropertyListDecoder(), Data("nonsense".utf8)) }
    }

    @Test func theAssociatedTypesAreData() {
        func output<E: TopLevelEncoder>(of _: E) -> ObjectIdentifier { ObjectIdentifier(E.Output.self) }
        func input<D: TopLevelDecoder>(of _: D) -> ObjectIdentifier { ObjectIdentifier(D.Input.self) }
        let data = ObjectIdentifier(Data.self)
        #expect(output(of: JSONEncoder()) == data)
        #expect(input(of: JSONDecoder()) == data)
        #expect(output(of: PropertyListEncoder()) == data)
        #expect(input(of: PropertyListDecoder()) == data)
    }
}
