import SluiceCore
import SluiceTesting
import Testing

@Suite("Fail")
struct FailTests {
    @Test func failsImmediatelyWithoutDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Fail<Int, TestError>(error: TestError(code: 3)).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "failure(TestError(code: 3))"])
    }

    @Test func typedInitializer() {
        let fail = Fail(outputType: String.self, failure: TestError(code: 2))
        #expect(type(of: fail) == Fail<String, TestError>.self)
        #expect(fail.error == TestError(code: 2))
    }

    @Test func equatable() {
        #expect(Fail<Int, TestError>(error: TestError(code: 1)) == Fail<Int, TestError>(error: TestError(code: 1)))
        #expect(Fail<Int, TestError>(error: TestError(code: 1)) != Fail<Int, TestError>(error: TestError(code: 2)))
    }

    @Test func everySubscriberGetsTheFailure() {
        let fail = Fail<Int, TestError>(error: TestError())
        let first = TestSubscriber<Int, TestError>()
        let second = TestSubscriber<Int, TestError>()
        fail.subscribe(first)
        fail.subscribe(second)
        #expect(first.completion == .failure(TestError()))
        #expect(second.completion == .failure(TestError()))
    }
}
