import SluiceCore
import SluiceTesting
import Testing

@Suite("Optional.Publisher")
struct OptionalPublisherTests {
    @Test func someDeliversTheValueOnDemandThenFinishes() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Optional(3).publisher.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Optional)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Optional)", "value(3)", "finished"])
    }

    @Test func noneFinishesImmediatelyWithoutDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Optional<Int>.none.publisher.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "finished"])
    }

    @Test func cancelFromInsideReceiveSuppressesTheCompletion() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        Optional.Publisher(1).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Optional)", "value(1)"])
    }

    @Test func publisherPropertyAndOutput() {
        #expect(Optional(2).publisher.output == 2)
        #expect(Optional<Int>.none.publisher.output == nil)
        #expect(Optional(2).publisher == Optional.Publisher(2))
        #expect(Optional(2).publisher != Optional.Publisher(3))
    }

    @Test func mapReturnsAnOptionalPublisher() {
        let mapped = Optional(2).publisher.map { "\($0)" }
        #expect(type(of: mapped) == Optional<String>.Publisher.self)
        #expect(mapped.output == "2")
        #expect(Optional<Int>.none.publisher.map { $0 + 1 }.output == nil)
    }

    @Test func filterReturnsAnOptionalPublisher() {
        let kept = Optional(4).publisher.filter { $0 > 3 }
        #expect(type(of: kept) == Optional<Int>.Publisher.self)
        #expect(kept.output == 4)
        #expect(Optional(2).publisher.filter { $0 > 3 }.output == nil)
        #expect(Optional<Int>.none.publisher.filter { _ in true }.output == nil)
    }
}
