import SluiceCore
import SluiceTesting
import Testing

@Suite("Result.Publisher")
struct ResultPublisherTests {
    @Test func successDeliversTheValueOnDemandThenFinishes() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Result<Int, TestError>.success(4).publisher.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Once)"])
        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(Once)", "value(4)", "finished"])
    }

    @Test func failureFailsImmediatelyWithoutDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Result<Int, TestError>.failure(TestError(code: 5)).publisher.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "failure(TestError(code: 5))"])
    }

    @Test func initializers() {
        #expect(Result<Int, TestError>.Publisher(1).result == .success(1))
        #expect(Result<Int, TestError>.Publisher(TestError(code: 2)).result == .failure(TestError(code: 2)))
        #expect(Result<Int, TestError>.Publisher(.success(3)) == Result<Int, TestError>.success(3).publisher)
        #expect(Result<Int, TestError>.Publisher(.success(3)) != Result<Int, TestError>.success(4).publisher)
    }

    @Test func cancelFromInsideReceiveSuppressesTheCompletion() {
        let subscriber = TestSubscriber<Int, TestError>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        Result<Int, TestError>.Publisher(1).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Once)", "value(1)"])
    }

    @Test func mapReturnsAResultPublisher() {
        let mapped = Result<Int, TestError>.success(2).publisher.map { "\($0)" }
        #expect(type(of: mapped) == Result<String, TestError>.Publisher.self)
        #expect(mapped.result == .success("2"))
        let failed = Result<Int, TestError>.failure(TestError(code: 1)).publisher.map { $0 + 1 }
        #expect(failed.result == .failure(TestError(code: 1)))
    }
}
