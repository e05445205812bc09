import Foundation
import Sluice
import SluiceTesting
import Testing

private struct Reading: Codable, Equatable, Sendable {
    var sensor: String
    var value: Int
}

/// A publisher of `Data` under the test's control, counting the cancels it receives.
private final class DataSource: Publisher, @unchecked Sendable {
    typealias Output = Data
    typealias Failure = Never

    final class Subscription: Sluice.Subscription, @unchecked Sendable {
        let lock = NSLock()
        var cancels = 0
        var requested = Subscribers.Demand.none
        func request(_ demand: Subscribers.Demand) { lock.withLock { requested += demand } }
        func cancel() { lock.withLock { cancels += 1 } }
    }

    let subscription = Subscription()
    var subscriber: AnySubscriber<Data, Never>?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Data, S.Failure == Never {
        self.subscriber = AnySubscriber(subscriber)
        subscriber.receive(subscription: subscription)
    }

    @discardableResult
    func send(_ text: String) -> Subscribers.Demand { subscriber?.receive(Data(text.utf8)) ?? .none }
}

@Suite("Encode and Decode with Foundation's JSON coders")
struct EncodeDecodeTests {
    private let readings = [Reading(sensor: "a", value: 1), Reading(sensor: "b", value: -2), Reading(sensor: "c", value: 3)]

    @Test func roundTripsThroughJSON() {
        let subscriber = TestSubscriber<Reading, any Error>()
        readings.publisher
            .encode(encoder: JSONEncoder())
            .decode(type: Reading.self, decoder: JSONDecoder())
            .subscribe(subscriber)
        #expect(subscriber.values == readings)
        #expect(subscriber.eventDescriptions.first == "subscription(Decode)")
        #expect(subscriber.eventDescriptions.last == "finished")
    }

    @Test func encodesToJSONData() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let subscriber = TestSubscriber<Data, any Error>()
        Just(Reading(sensor: "x", value: 5)).encode(encoder: encoder).subscribe(subscriber)
        #expect(subscriber.values.map { String(decoding: $0, as: UTF8.self) } == [#"{"sensor":"x","value":5}"#])
        #expect(subscriber.completion != nil)
    }

    @Test func aDecodingErrorFailsTheStreamAndCancelsUpstream() {
        let source = DataSource()
        let subscriber = TestSubscriber<Reading, any Error>()
        source.decode(type: Reading.self, decoder: JSONDecoder()).subscribe(subscriber)
        source.send(#"{"sensor":"a","value":1}"#)
        #expect(source.send(#"{"sensor":"b"}"#) == .none)
        source.send(#"{"sensor":"c","value":3}"#)
        #expect(source.subscription.cancels == 1)
        #expect(subscriber.values == [Reading(sensor: "a", value: 1)])
        guard case .failure(let error) = subscriber.completion else {
            Issue.record("expected a failure")
            return
        }
        #expect(error is DecodingError)
        #expect(subscriber.events.count == 3)
    }

    @Test func anEncodingErrorFailsTheStream() {
        let subscriber = TestSubscriber<Data, any Error>()
        [1.0, Double.nan, 2.0].publisher.encode(encoder: JSONEncoder()).subscribe(subscriber)
        #expect(subscriber.values.map { String(decoding: $0, as: UTF8.self) } == ["1"])
        guard case .failure(let error) = subscriber.completion else {
            Issue.record("expected a failure")
            return
        }
        #expect(error is EncodingError)
    }

    @Test func limitedDemand() {
        let subscriber = TestSubscriber<Reading, any Error>(initialDemand: .max(1))
        readings.publisher
            .encode(encoder: JSONEncoder())
            .decode(type: Reading.self, decoder: JSONDecoder())
            .subscribe(subscriber)
        #expect(subscriber.values == [readings[0]])
        subscriber.request(.max(1))
        #expect(subscriber.values == Array(readings.prefix(2)))
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == readings)
        #expect(subscriber.completion != nil)
    }

    @Test func propertyListRoundTrip() {
        let subscriber = TestSubscriber<Reading, any Error>()
        readings.publisher
            .encode(encoder: PropertyListEncoder())
            .decode(type: Reading.self, decoder: PropertyListDecoder())
            .subscribe(subscriber)
        #expect(subscriber.values == readings)
    }

    @Test func types() {
        let encoded = readings.publisher.encode(encoder: JSONEncoder())
        #expect(type(of: encoded) == Publishers.Encode<Publishers.Sequence<[Reading], Never>, JSONEncoder>.self)
        let decoded = encoded.decode(type: Reading.self, decoder: JSONDecoder())
        #expect(type(of: decoded) == Publishers.Decode<Publishers.Encode<Publishers.Sequence<[Reading], Never>, JSONEncoder>,
                                                       Reading, JSONDecoder>.self)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            (0..<20).map { Reading(sensor: "s\($0)", value: $0) }.publisher
                .encode(encoder: JSONEncoder())
                .decode(type: Reading.self, decoder: JSONDecoder())
        }
        try await PublisherContract.verify {
            ["{\"sensor\":\"a\",\"value\":1}", "nonsense"].map { Data($0.utf8) }.publisher
                .decode(type: Reading.self, decoder: JSONDecoder())
        }
    }
}
