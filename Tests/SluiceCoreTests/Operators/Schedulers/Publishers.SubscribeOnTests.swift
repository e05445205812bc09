import SluiceCore
import SluiceTesting
import Testing

@Suite struct SubscribeOnTests {
    @Test func subscribingRequestingAndCancellingHappenOnTheScheduler() {
        let scheduler = VirtualScheduler()
        var requests: [Subscribers.Demand] = []
        var cancelled = false
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        (1...5).publisher
            .handleEvents(receiveCancel: { cancelled = true }, receiveRequest: { requests.append($0) })
            .subscribe(on: scheduler)
            .subscribe(subscriber)
        #expect(subscriber.events.isEmpty)        // not subscribed yet
        scheduler.advance()                       // subscribes; the request is scheduled in turn
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(requests == [.max(2)])
        scheduler.advance()
        #expect(requests == [.max(2), .max(1)])
        #expect(subscriber.values == [1, 2, 3])
        subscriber.cancel()
        #expect(!cancelled)
        scheduler.advance()
        #expect(cancelled)
    }

    @Test func valuesAndCompletionComeStraightThrough() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(on: scheduler).subscribe(subscriber)
        scheduler.advance()
        subject.send(1)
        #expect(subscriber.values == [1])
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.completion == .failure(TestError()))
    }

    /// As Apple's, a scheduled request or cancel holds the subscriber until the scheduler runs it.
    @Test func aScheduledCancelHoldsTheSubscriberUntilItRuns() {
        let scheduler = VirtualScheduler()
        var cancelled = false
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            PassthroughSubject<Int, Never>()
                .handleEvents(receiveCancel: { cancelled = true })
                .subscribe(on: scheduler)
                .subscribe(subscriber)
            scheduler.advance()
            subscriber.cancel()
        }
        #expect(weakSubscriber != nil)
        #expect(!cancelled)
        scheduler.advance()
        #expect(cancelled)
        #expect(weakSubscriber == nil)
    }

    /// As Apple's, a request that re-enters the operator from inside the upstream's `request(_:)`,
    /// on the same thread, stops the program: here the upstream asks for more from inside its own
    /// `request(_:)`, and the immediate scheduler runs that request at once.
    @Test func aRequestReenteringFromTheUpstreamsRequestStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = RecursiveRequester()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            upstream.subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
            subscriber.request(.max(1))
        }
        if let result {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("subscribe(on:): request(_:) re-entered"), "stderr: \(message)")
        }
    }

    /// The same with the subscriber asking for more from inside `receive(_:)` of a value the
    /// upstream sends from inside its `request(_:)`.
    @Test func aRequestFromReceiveOfASynchronousUpstreamStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
            subscriber.onValue = { _, subscriber in
                subscriber.request(.max(1))
                return .none
            }
            (1...3).publisher.subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
        }
    }

    /// Nothing stops a request the scheduler runs later (it is no recursion), nor a cancel that
    /// re-enters from the upstream's `cancel()`, as with Apple's.
    @Test func aDeferredRecursiveRequestAndARecursiveCancelAreFine() {
        let scheduler = VirtualScheduler()
        let upstream = RecursiveRequester()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.subscribe(on: scheduler).subscribe(subscriber)
        scheduler.advance()
        subscriber.request(.max(1))
        scheduler.advance()
        #expect(upstream.requests == [.max(1), .max(1)])
        subscriber.cancel()
        scheduler.advance()
        #expect(upstream.cancels == 1)
    }

    /// The same recursive cancel on the immediate scheduler.
    @Test func aRecursiveCancelOnTheImmediateSchedulerIsFine() {
        let upstream = RecursiveRequester()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
        subscriber.cancel()
        #expect(upstream.cancels == 1)
    }

    /// Every scenario of the contract kit but the two that request from inside `receive(_:)`, which
    /// trap over a synchronous upstream on the immediate scheduler, as Apple's operator does.
    static let scenariosWithoutRecursiveRequests = PublisherContract.Scenario.all.filter {
        $0 != .order && $0 != .requestInsideReceive
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify(scenarios: Self.scenariosWithoutRecursiveRequests) {
            (1...4).publisher.subscribe(on: ImmediateScheduler.shared)
        }
    }
}

/// A publisher whose subscription, asked for values the first time, asks the subscription it
/// gave them to (`subscribe(on:)`'s) for one more from inside `request(_:)`, and re-enters
/// `cancel()` likewise. It sends nothing.
private final class RecursiveRequester: Publisher, Subscription, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    private(set) var requests: [Subscribers.Demand] = []
    private(set) var cancels = 0
    /// The subscriber, which is `subscribe(on:)`'s subscription.
    private var subscriber: (any Subscription)?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        self.subscriber = subscriber as? any Subscription
        subscriber.receive(subscription: self)
    }

    func request(_ demand: Subscribers.Demand) {
        requests.append(demand)
        if requests.count == 1 { subscriber?.request(.max(1)) }
    }

    func cancel() {
        cancels += 1
        if cancels == 1 { subscriber?.cancel() }
    }
}
