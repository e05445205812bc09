import SluiceCore
import SluiceTesting
import Testing

private final class Weather: @unchecked Sendable {
    @Published var temperature: Double
    init(temperature: Double) {
        self.temperature = temperature
    }
}

private final class Holder<Value>: @unchecked Sendable {
    @Published var value: Value
    init(_ value: Value) { self.value = value }
}

/// Mirrors one property into another with `assign(to:)` from its own initializer.
private final class Mirroring: ObservableObject, @unchecked Sendable {
    @Published var source = 1
    @Published var doubled = 0
    let token = Token()
    init() {
        $source.map { $0 * 2 }.assign(to: &$doubled)
    }
}

/// Feeds a property from an outside publisher with `assign(to:)`.
private final class Fed: ObservableObject, @unchecked Sendable {
    @Published var value = 0
    init<P: Publisher>(from upstream: P) where P.Output == Int, P.Failure == Never {
        upstream.assign(to: &$value)
    }
}

@Suite("Published")
struct PublishedTests {
    // MARK: Values

    @Test func appleWeatherExample() {
        let weather = Weather(temperature: 20)
        let printed = Shared<[String]>([])
        let cancellable = weather.$temperature
            .sink { value in printed.mutate { $0.append("Temperature now: \(value)") } }
        weather.temperature = 25
        #expect(printed.value == ["Temperature now: 20.0", "Temperature now: 25.0"])
        _ = cancellable
    }

    @Test func readsAndWritesTheValue() {
        let holder = Holder("a")
        #expect(holder.value == "a")
        holder.value = "b"
        #expect(holder.value == "b")
        holder.value += "c"
        #expect(holder.value == "bc")
    }

    @Test func publishesInWillSet() {
        let weather = Weather(temperature: 1)
        let seen = Shared<[String]>([])
        let cancellable = weather.$temperature.sink { new in
            seen.mutate { $0.append("new \(new), stored \(weather.temperature)") }
        }
        weather.temperature = 2
        weather.temperature = 3
        #expect(seen.value == ["new 1.0, stored 1.0", "new 2.0, stored 1.0", "new 3.0, stored 2.0"])
        #expect(weather.temperature == 3)
        _ = cancellable
    }

    @Test func theProjectedPublisherNeverCompletes() {
        let holder = Holder(0)
        let subscriber = TestSubscriber<Int, Never>()
        holder.$value.subscribe(subscriber)
        holder.value = 1
        #expect(subscriber.eventDescriptions == ["subscription(PublishedSubject)", "value(0)", "value(1)"])
    }

    @Test func anOptionalNilIsAValue() {
        let holder = Holder<String?>(nil)
        let subscriber = TestSubscriber<String?, Never>()
        holder.$value.subscribe(subscriber)
        holder.value = "x"
        holder.value = nil
        #expect(subscriber.values == [nil, "x", nil])
    }

    @Test func usableDirectly() {
        var published = Published(initialValue: 3)
        let subscriber = TestSubscriber<Int, Never>()
        published.projectedValue.subscribe(subscriber)
        #expect(subscriber.values == [3])

        var other = Published(wrappedValue: "w")
        let strings = TestSubscriber<String, Never>()
        other.projectedValue.subscribe(strings)
        #expect(strings.values == ["w"])
    }

    // MARK: Demand

    @Test func theCurrentValueWaitsForDemand() {
        let holder = Holder(5)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        holder.$value.subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [5])
    }

    @Test func limitedDemandGetsTheLatestValue() {
        let holder = Holder(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        holder.$value.subscribe(subscriber)
        holder.value = 1
        holder.value = 2
        #expect(subscriber.values == [0])
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 2])
        holder.value = 3
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 2, 3])
    }

    // MARK: Cancellation and re-entrancy

    @Test func nothingArrivesAfterCancel() {
        let holder = Holder(0)
        let subscriber = TestSubscriber<Int, Never>()
        holder.$value.subscribe(subscriber)
        subscriber.cancel()
        holder.value = 1
        #expect(subscriber.values == [0])
    }

    @Test func settingThePropertyFromItsOwnSink() {
        let holder = Holder(0)
        let received = Shared<[Int]>([])
        let cancellable = holder.$value.sink { value in
            received.mutate { $0.append(value) }
            if value == 1 { holder.value = 2 }
        }
        holder.value = 1
        #expect(received.value == [0, 1, 2])
        _ = cancellable
    }

    // MARK: assign(to:)

    @Test func assignRepublishesValues() {
        let subject = PassthroughSubject<Int, Never>()
        let fed = Fed(from: subject)
        let subscriber = TestSubscriber<Int, Never>()
        fed.$value.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(fed.value == 2)
        #expect(subscriber.values == [0, 1, 2])
    }

    @Test func assignFiresObjectWillChange() {
        let subject = PassthroughSubject<Int, Never>()
        let fed = Fed(from: subject)
        let changes = Shared<[Int]>([])
        let cancellable = fed.objectWillChange.sink { changes.mutate { $0.append(fed.value) } }
        subject.send(7)
        #expect(changes.value == [0])
        #expect(fed.value == 7)
        _ = cancellable
    }

    @Test func assignIgnoresTheUpstreamCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        let fed = Fed(from: subject)
        let subscriber = TestSubscriber<Int, Never>()
        fed.$value.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        fed.value = 2
        #expect(subscriber.eventDescriptions == ["subscription(PublishedSubject)", "value(0)", "value(1)", "value(2)"])
    }

    @Test func assignFromTheSameObjectMakesNoRetainCycle() {
        weak var weakObject: Mirroring?
        weak var weakToken: Token?
        do {
            let object = Mirroring()
            weakObject = object
            weakToken = object.token
            #expect(object.doubled == 2)
            object.source = 5
            #expect(object.doubled == 10)
        }
        #expect(weakObject == nil)
        #expect(weakToken == nil)
    }

    @Test func assignIsCancelledWhenThePropertyGoesAway() {
        let upstream = ManualPublisher<Int, Never>()
        weak var weakObject: Fed?
        do {
            let object = Fed(from: upstream)
            weakObject = object
            #expect(upstream.subscription.requests == [.unlimited])
            upstream.send(3)
            #expect(object.value == 3)
            #expect(!upstream.subscription.isCancelled)
        }
        #expect(weakObject == nil)
        #expect(upstream.subscription.isCancelled)
    }

    // MARK: Contract

    @Test func assigningTheProjectedValueChangesNothing() {
        // As Apple's: `$a = $b` leaves both properties' values as they were.
        let first = Holder(1)
        let second = Holder(2)
        first.$value = second.$value
        #expect(first.value == 1)
        #expect(second.value == 2)
        first.value = 3
        #expect(second.value == 2)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            let holder = Holder(0)
            return PublisherContract.Fixture(holder.$value) {
                for value in 1...5 { holder.value = value }
            }
        }
    }

    // MARK: Memory

    @Test func releasesTheSubscriberAfterCancel() {
        let holder = Holder(0)
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            holder.$value.subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func anObservedObjectDeallocates() {
        weak var weakHolder: Holder<Int>?
        let subscriber = TestSubscriber<Int, Never>()
        do {
            let holder = Holder(0)
            weakHolder = holder
            holder.$value.subscribe(subscriber)
            holder.value = 1
        }
        #expect(weakHolder == nil)
        #expect(subscriber.values == [0, 1])
        subscriber.cancel()
    }
}
