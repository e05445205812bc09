import NIOCore
import NIOEmbedded
import NIOPosix
import Sluice
import SluiceNIO
import SluiceTesting
import Testing

struct Boom: Error, Equatable {}

/// `EventLoopFuture` as a publisher, and a publisher's first value or completion as a future.
@Suite struct EventLoopFuturePublisherTests {
    @Test func deliversTheValueOnlyOnDemand() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let promise = loop.makePromise(of: Int.self)
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
        promise.futureResult.publisher.subscribe(subscriber)
        promise.succeed(7)
        #expect(subscriber.values.isEmpty && subscriber.completion == nil)   // held until demand
        subscriber.request(.max(1))
        #expect(subscriber.values == [7])
        #expect(subscriber.isFinished)
    }

    @Test func deliversAtCompletionWhenDemandCameFirst() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let promise = loop.makePromise(of: String.self)
        let subscriber = TestSubscriber<String, any Error>()
        promise.futureResult.publisher.subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        promise.succeed("done")
        #expect(subscriber.values == ["done"] && subscriber.isFinished)
    }

    @Test func failsWithoutDemand() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
        loop.makeFailedFuture(Boom()).publisher.subscribe(subscriber)
        #expect(subscriber.failure as? Boom == Boom())
    }

    @Test func isLazyAndEachSubscriberGetsTheValue() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let promise = loop.makePromise(of: Int.self)
        let publisher = promise.futureResult.publisher
        promise.succeed(3)
        let first = TestSubscriber<Int, any Error>()
        let second = TestSubscriber<Int, any Error>()
        publisher.subscribe(first)
        publisher.subscribe(second)
        #expect(first.values == [3] && second.values == [3])
    }

    @Test func cancelBeforeCompletionDropsTheValueAndReleasesTheSubscriber() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let promise = loop.makePromise(of: Int.self)
        weak var released: TestSubscriber<Int, any Error>?
        do {
            let subscriber = TestSubscriber<Int, any Error>()
            released = subscriber
            promise.futureResult.publisher.subscribe(subscriber)
            subscriber.cancel()
            promise.succeed(1)
            #expect(subscriber.values.isEmpty && subscriber.completion == nil)
        }
        #expect(released == nil)
    }

    @Test func keepsTheContract() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        try await PublisherContract.verify(settle: .milliseconds(50)) { loop.makeSucceededFuture(42).publisher }
        try await PublisherContract.verify(settle: .milliseconds(50)) {
            loop.scheduleTask(in: .milliseconds(2)) { 42 }.futureResult.publisher
        }
        try await PublisherContract.verify(settle: .milliseconds(50)) {
            loop.scheduleTask(in: .milliseconds(2)) { () throws -> Int in throw Boom() }.futureResult.publisher
        }
        try await group.shutdownGracefully()
    }

    // MARK: The way back

    @Test func firstValueFutureTakesOneValueAndCancels() async throws {
        try await withLoop { loop in
            let subject = PassthroughSubject<Int, Never>()
            let demands = Shared<[Subscribers.Demand]>([])
            let cancelled = Shared(false)
            let future = subject
                .handleEvents(receiveCancel: { cancelled.mutate { $0 = true } },
                              receiveRequest: { demand in demands.mutate { $0.append(demand) } })
                .firstValueFuture(on: loop)
            subject.send(5)
            subject.send(6)
            let value = try await future.get()
            #expect(value == 5)
            #expect(future.eventLoop === loop)
            #expect(demands.value == [.max(1)])
            #expect(cancelled.value)
        }
    }

    @Test func firstValueFutureFailures() async throws {
        await withLoop { loop in
            await #expect(throws: PublisherFinishedWithoutValueError()) {
                try await Empty<Int, Never>().firstValueFuture(on: loop).get()
            }
            await #expect(throws: Boom()) {
                try await Fail<Int, Boom>(error: Boom()).firstValueFuture(on: loop).get()
            }
        }
    }

    @Test func completionFutureWaitsForTheEnd() async throws {
        try await withLoop { loop in
            let subject = PassthroughSubject<Int, Boom>()
            let future = subject.completionFuture(on: loop)
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            try await future.get()
            let failing = PassthroughSubject<Int, Boom>()
            let failed = failing.completionFuture(on: loop)
            failing.send(completion: .failure(Boom()))
            await #expect(throws: Boom()) { try await failed.get() }
        }
    }

    @Test func cascadeFirstValueCanBeCancelled() async throws {
        await withLoop { loop in
            let subject = PassthroughSubject<Int, Never>()
            let cancelled = Shared(false)
            let promise = loop.makePromise(of: Int.self)
            let handle = subject.handleEvents(receiveCancel: { cancelled.mutate { $0 = true } })
                .cascadeFirstValue(to: promise)
            handle.cancel()
            #expect(cancelled.value)
            await #expect(throws: PublisherSubscriptionCancelledError()) { try await promise.futureResult.get() }
            subject.send(1)   // nothing more happens
        }
    }
}
