import SluiceCore
import SluiceTesting
import Testing

/// A publisher that keeps its subscriber and sends the subscription only when the test says so.
private final class LateIntPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    private var stored: Any?
    var send: ((Int) -> Subscribers.Demand)?
    var sendSubscription: ((any Subscription) -> Void)?
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        stored = subscriber
        send = subscriber.receive(_:)
        sendSubscription = subscriber.receive(subscription:)
    }
    /// The operator's subscriber, which is also the subscription its downstream gets.
    var downstreamSubscription: any Subscription { stored as! any Subscription }
}

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
        // The demand the subscriber returns for a value is reported as a request (as Apple's).
        #expect(log.value == ["subscription(ManualSubscription)", "request(\(Subscribers.Demand.max(1)))",
                              "value(1)", "request(\(Subscribers.Demand.max(1)))", "completion"])
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

    @Test func zeroDemandIsReportedAndForwarded() {
        // As Apple's: no trap; the request is reported and passed upstream.
        let upstream = ManualPublisher<Int, Never>()
        var requests: [Subscribers.Demand] = []
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.handleEvents(receiveRequest: { requests.append($0) }).subscribe(subscriber)
        subscriber.subscription!.request(.none)
        subscriber.subscription!.request(.max(3))
        #expect(requests == [.none, .max(3)])
        #expect(upstream.subscription.requests == [.none, .max(3)])
    }

    @Test func demandReturnedByTheSubscriberIsReportedAsARequest() {
        let upstream = ManualPublisher<Int, Never>()
        var requests: [Subscribers.Demand] = []
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subscriber.onValue = { value, _ in .max(value) }
        upstream.handleEvents(receiveRequest: { requests.append($0) }).subscribe(subscriber)
        #expect(upstream.send(0) == .none)
        #expect(upstream.send(2) == .max(2))
        #expect(requests == [.max(2)])
    }

    @Test func eventsBeforeTheSubscriptionArePassedOnAndDemandWaitsForIt() {
        let upstream = LateIntPublisher()
        var log: [String] = []
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subscriber.onValue = { _, _ in .max(4) }
        upstream.handleEvents(
            receiveSubscription: { _ in log.append("subscription") },
            receiveOutput: { log.append("value \($0)") },
            receiveRequest: { log.append("request \($0)") }
        ).subscribe(subscriber)
        // A value before any subscription reaches the subscriber; its demand is reported.
        #expect(upstream.send!(1) == .max(4))
        #expect(subscriber.values == [1])
        // Demand requested before the subscription is reported now, requested when it arrives.
        upstream.downstreamSubscription.request(.max(2))
        let subscription = ManualPublisher<Int, Never>.Subscription()
        upstream.sendSubscription!(subscription)
        #expect(log == ["value 1", "request max(4)", "request max(2)", "subscription"])
        #expect(subscription.requests == [.max(2)])
    }

    @Test func aSubscriptionArrivingAfterAnEarlyCancelIsReportedButNotCancelled() {
        let upstream = LateIntPublisher()
        var log: [String] = []
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.handleEvents(receiveSubscription: { _ in log.append("subscription") },
                              receiveCancel: { log.append("cancel") }).subscribe(subscriber)
        upstream.downstreamSubscription.cancel()
        let subscription = ManualPublisher<Int, Never>.Subscription()
        upstream.sendSubscription!(subscription)
        #expect(log == ["cancel", "subscription"])
        #expect(subscription.requests == [] && subscription.cancelCount == 0)
        #expect(subscriber.subscriptionsReceived == 0)
    }

    @Test func everyLaterSubscriptionIsReportedAndCancelled() {
        let upstream = LateIntPublisher()
        var subscriptions = 0
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.handleEvents(receiveSubscription: { _ in subscriptions += 1 }).subscribe(subscriber)
        let first = ManualPublisher<Int, Never>.Subscription()
        let second = ManualPublisher<Int, Never>.Subscription()
        upstream.sendSubscription!(first)
        upstream.sendSubscription!(second)
        #expect(subscriptions == 2)
        #expect(first.cancelCount == 0 && second.cancelCount == 1)
        #expect(subscriber.subscriptionsReceived == 1)
    }

    @Test func describedAsHandleEventsWithAnEmptyMirror() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.handleEvents().subscribe(subscriber)
        let subscription = subscriber.subscription!
        #expect(String(describing: subscription) == "HandleEvents")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().handleEvents() }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.handleEvents()) == Publishers.HandleEvents<PassthroughSubject<Int, Never>>.self)
    }
}
