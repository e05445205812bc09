import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.HandleEvents")
struct HandleEventsTests {
    @Test func reportsEveryEventBeforeForwarding() {
        let upstream = ManualPublisher<Int, Never>()
        let log = Shared<[String]>([])
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        upstream.handleEvents(
            receiveSubscription: { subscription in log.mutate { $0.append("subscription(\(subscription))") } },
            receiveOutput: { value in log.mutate { $0.append("value(\(value))") } },
            receiveCompletion: { _ in log.mutate { $0.append("completion") } },
            receiveCancel: { log.mutate { $0.append("cancel") } },
            receiveRequest: { demand in log.mutate { $0.append("request(\(demand))") } }
        ).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        upstream.send(completion: .finished)
        #expect(log.value == ["subscription(ManualSubscription)", "request(\(Subscribers.Demand.max(1)))",
                              "value(1)", "completion"])
        #expect(subscriber.eventDescriptions == ["subscription(HandleEvents)", "value(1)", "finished"])
        #expect(upstream.subscription.requests == [.max(1)])
    }

    @Test func failurePassesThrough() {
        let subscriber = TestSubscriber<Int, TestError>()
        var completions = 0
        Fail<Int, TestError>(error: TestError(code: 1))
            .handleEvents(receiveCompletion: { _ in completions += 1 }).subscribe(subscriber)
        #expect(completions == 1)
        #expect(subscriber.eventDescriptions == ["subscription(HandleEvents)", "failure(TestError(code: 1))"])
    }

    @Test func cancelReportsOnceAndCancelsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        var cancels = 0
        let subscriber = TestSubscriber<Int, Never>()
        upstream.handleEvents(receiveCancel: { cancels += 1 }).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        upstream.send(1)
        #expect(cancels == 1)
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [])
    }

    @Test func reentrantRequestAndCancel() {
        let requesting = TestSubscriber<Int, Never>(initialDemand: .max(1))
        requesting.onValue = { _, me in
            me.request(.max(1))
            return .none
        }
        (1...3).publisher.eraseToAnyPublisher().handleEvents().subscribe(requesting)
        #expect(requesting.values == [1, 2, 3])
        #expect(requesting.completion == .finished)
        let cancelling = TestSubscriber<Int, Never>()
        cancelling.onValue = { _, me in
            me.cancel()
            return .none
        }
        (1...3).publisher.eraseToAnyPublisher().handleEvents().subscribe(cancelling)
        #expect(cancelling.values == [1])
    }

    @Test func releasesSubscriber() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.handleEvents().subscribe(subscriber)
            subscriber.cancel()
        }
        upstream.detachAll()
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().handleEvents() }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.handleEvents()) == Publishers.HandleEvents<PassthroughSubject<Int, Never>>.self)
    }
}
