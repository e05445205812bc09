import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Scan")
struct ScanTests {
    @Test func publishesEachRunningResult() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.scan(0, +).subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.eventDescriptions == [
            "subscription(PassthroughSubject)", "value(1)", "value(3)", "value(6)", "failure(TestError(code: 1))",
        ])
    }

    @Test func eachSubscriptionStartsFromTheInitialResult() {
        let scanned = (1...3).publisher.eraseToAnyPublisher().scan("") { $0 + String($1) }
        let first = TestSubscriber<String, Never>()
        let second = TestSubscriber<String, Never>()
        scanned.subscribe(first)
        scanned.subscribe(second)
        #expect(first.values == ["1", "12", "123"])
        #expect(second.values == ["1", "12", "123"])
        #expect(second.completion == .finished)
    }

    @Test func limitedDemandAndPassThroughDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...4).publisher.eraseToAnyPublisher().scan(0, +).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 3, 6])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 3, 6, 10])
        #expect(subscriber.completion == .finished)

        let upstream = ManualPublisher<Int, Never>()
        let other = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(1))
        upstream.scan(0, +).subscribe(other)
        #expect(upstream.subscription.requests == [.max(2)])
        #expect(upstream.send(5) == .max(1))
        #expect(other.subscription as? ManualPublisher<Int, Never>.Subscription === upstream.subscription)
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value >= 3 { subscriber.cancel() }
            return .none
        }
        upstream.scan(0, +).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1, 3])
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(!subscriberSurvives({ subject.scan(0, +).subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.scan(0, +).subscribe($0) },
                                    end: { _ in subject.send(completion: .finished) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, Never>()
        upstream.scan(0, +).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberDescription == "Scan")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...20).publisher.eraseToAnyPublisher().scan(0, +) }
    }

    @Test func type() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(Swift.type(of: subject.scan("", { $0 + String($1) }))
            == Publishers.Scan<PassthroughSubject<Int, Never>, String>.self)
    }
}

extension ScanTests {
    @Test func fusedOnJustOptionalResultAndSequence() {
        let just = Just(5).scan(10, +)
        #expect(Swift.type(of: just) == Result<Int, Never>.Publisher.self)
        #expect(just.result == .success(15))

        let optional = Optional(2).publisher.scan("", { "\($0)\($1)" })
        #expect(Swift.type(of: optional) == Optional<String>.Publisher.self)
        #expect(optional == Optional("2").publisher)
        #expect(Optional<Int>.none.publisher.scan(0, +) == Optional<Int>.none.publisher)

        let result = Result<Int, TestError>.Publisher(3).scan(1, *)
        #expect(Swift.type(of: result) == Result<Int, TestError>.Publisher.self)
        #expect(result.result == .success(3))
        #expect(Result<Int, TestError>.Publisher(TestError(code: 2)).scan(1, *).result == .failure(TestError(code: 2)))

        var calls = 0
        let sequence = [1, 2, 3, 4].publisher.scan(0) { sum, value in
            calls += 1
            return sum + value
        }
        #expect(calls == 4)
        #expect(Swift.type(of: sequence) == Publishers.Sequence<[Int], Never>.self)
        #expect(sequence.sequence == [1, 3, 6, 10])
        let subscriber = TestSubscriber<Int, Never>()
        sequence.subscribe(subscriber)
        #expect(subscriber.values == [1, 3, 6, 10])
        #expect(subscriber.completion == .finished)
    }
}
