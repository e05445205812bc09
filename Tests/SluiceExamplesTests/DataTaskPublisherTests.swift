import Dispatch
import Foundation
import Sluice
import SluiceExamples
import SluiceTesting
import Testing

@Suite("FakeSession.DataTaskPublisher")
struct DataTaskPublisherTests {
    typealias Output = FakeSession.DataTaskPublisher.Output
    typealias Subscriber = TestSubscriber<Output, FakeSession.TransferError>

    let known = URL(string: "https://example.com/pep-boys")!
    let unknown = URL(string: "https://example.com/nobody")!
    let body = Data("Manny, Moe and Jack".utf8)

    func makeSession(queue: DispatchQueue = DispatchQueue(label: "test")) -> FakeSession {
        FakeSession(responses: [known: body], queue: queue)
    }

    @Test func deliversNothingBeforeDemand() {
        let session = makeSession()
        let subscriber = Subscriber(initialDemand: .none)
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        session.waitUntilIdle()
        #expect(subscriber.eventDescriptions == ["subscription(DataTaskPublisher)"])
    }

    @Test func deliversOnceAfterDemandThenFinishes() {
        let session = makeSession()
        let subscriber = Subscriber(initialDemand: .none)
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.request(.max(1))   // a second request does not start a second transfer
        session.waitUntilIdle()
        #expect(subscriber.values.map(\.data) == [body])
        #expect(subscriber.values.map(\.response) == [FakeSession.Response(url: known, statusCode: 200)])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.events.count == 3)   // subscription, value, finished
    }

    @Test func failurePath() {
        let session = makeSession()
        let subscriber = Subscriber()
        session.dataTaskPublisher(for: unknown).subscribe(subscriber)
        session.waitUntilIdle()
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(.notFound(unknown)))
    }

    @Test func nothingAfterCancel() {
        let queue = DispatchQueue(label: "held")
        let session = makeSession(queue: queue)
        let subscriber = Subscriber()
        queue.suspend()   // hold the response back until after the cancel
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        subscriber.cancel()
        queue.resume()
        session.waitUntilIdle()
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == nil)
    }

    @Test func cancelFromInsideReceiveSuppressesTheCompletion() {
        let session = makeSession()
        let subscriber = Subscriber()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        session.waitUntilIdle()
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == nil)
    }

    @Test func nothingArrivesWhileTheSubscriberIsStillInsideReceiveSubscription() {
        let session = makeSession()
        let subscriber = Subscriber()   // requests .unlimited inside receive(subscription:)
        let eventsDuringHandshake = Locked<Int?>(nil)
        subscriber.onSubscription = { subscriber in
            // Still inside receive(subscription:): had the task started, its response would be
            // delivered on the session's queue while we wait here.
            session.waitUntilIdle()
            let count = subscriber.events.count
            eventsDuringHandshake.update { $0 = count }
        }
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        session.waitUntilIdle()
        #expect(eventsDuringHandshake.value == 1)   // only the subscription
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelAfterCompletionIsHarmless() {
        let session = makeSession()
        let subscriber = Subscriber()
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        session.waitUntilIdle()
        subscriber.cancel()
        subscriber.cancel()
        session.waitUntilIdle()
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == .finished)
    }

    @Test func concurrentRequestsStillDeliverOnce() {
        let session = makeSession()
        let subscriber = Subscriber(initialDemand: .none)
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in subscriber.request(.max(1)) }
        session.waitUntilIdle()
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == .finished)
    }

    @Test func eachSubscriptionFetchesOnItsOwn() {
        let session = makeSession()
        let publisher = session.dataTaskPublisher(for: known)
        let first = Subscriber(), second = Subscriber()
        publisher.subscribe(first)
        publisher.subscribe(second)
        session.waitUntilIdle()
        #expect(first.values.count == 1)
        #expect(second.values.count == 1)
    }

    @Test func aTaskCancelledBeforeItRunsReportsCancelled() {
        let queue = DispatchQueue(label: "held")
        let session = makeSession(queue: queue)
        let outcome = Locked<Result<Data, FakeSession.TransferError>?>(nil)
        queue.suspend()
        let task = session.dataTask(with: known) { result in outcome.update { $0 = result.map(\.data) } }
        task.resume()
        task.cancel()
        queue.resume()
        session.waitUntilIdle()
        #expect(outcome.value == .failure(.cancelled))
    }

    // MARK: The contract kit

    @Test func keepsTheContract() async throws {
        let session = makeSession()
        let url = known
        try await PublisherContract.verify(settle: .milliseconds(50)) { session.dataTaskPublisher(for: url) }
    }

    @Test func keepsTheContractWhenFailing() async throws {
        let session = makeSession()
        let url = unknown
        try await PublisherContract.verify(settle: .milliseconds(50)) { session.dataTaskPublisher(for: url) }
    }
}
