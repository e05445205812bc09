import SluiceCore
import SluiceTesting
import Testing

@Suite("Empty")
struct EmptyTests {
    @Test func finishesImmediatelyWithoutDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Empty<Int, TestError>().subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "finished"])
    }

    @Test func neverCompletesWhenAsked() {
        let subscriber = TestSubscriber<Int, Never>()
        Empty<Int, Never>(completeImmediately: false).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)"])
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(subscriber.eventDescriptions == ["subscription(Empty)"])
    }

    @Test func typedInitializer() {
        let empty = Empty(completeImmediately: false, outputType: String.self, failureType: TestError.self)
        #expect(type(of: empty) == Empty<String, TestError>.self)
        #expect(!empty.completeImmediately)
        #expect(Empty<Int, Never>().completeImmediately)
    }

    @Test func equatable() {
        #expect(Empty<Int, Never>() == Empty<Int, Never>())
        #expect(Empty<Int, Never>() != Empty<Int, Never>(completeImmediately: false))
    }

    @Test func sinkOnEmpty() {
        var completions: [Subscribers.Completion<Never>] = []
        let cancellable = Empty<Int, Never>().sink(receiveCompletion: { completions.append($0) }, receiveValue: { _ in
            Issue.record("no value expected")
        })
        #expect(completions == [.finished])
        _ = cancellable
    }
}
