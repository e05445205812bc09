import SluiceCore
import SluiceTesting
import Testing

@Suite("Publishers.Breakpoint", .serialized)
struct BreakpointTests {
    /// Runs `body` with breakpoints counted instead of raising `SIGTRAP`.
    private func countingTraps(_ body: () -> Void) -> Int {
        let traps = Shared(0)
        BreakpointTrap.setAction { traps.mutate { $0 += 1 } }
        defer { BreakpointTrap.setAction(nil) }
        body()
        return traps.value
    }

    @Test func trapsWhenAClosureReturnsTrue() {
        let subscriber = TestSubscriber<Int, Never>()
        let traps = countingTraps {
            (1...3).publisher.eraseToAnyPublisher()
                .breakpoint(receiveSubscription: { _ in true }, receiveOutput: { $0 == 2 },
                            receiveCompletion: { _ in false })
                .subscribe(subscriber)
        }
        #expect(traps == 2)
        // As Apple's, the upstream's subscription reaches the subscriber unchanged.
        #expect(subscriber.eventDescriptions == ["subscription(1...3)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func breakpointOnErrorTrapsOnlyOnFailure() {
        let failing = TestSubscriber<Int, TestError>()
        let finishing = TestSubscriber<Int, TestError>()
        let traps = countingTraps {
            Fail<Int, TestError>(error: TestError(code: 1)).breakpointOnError().subscribe(failing)
            Empty<Int, TestError>().breakpointOnError().subscribe(finishing)
        }
        #expect(traps == 1)
        #expect(failing.eventDescriptions == ["subscription(Empty)", "failure(TestError(code: 1))"])
        #expect(finishing.eventDescriptions == ["subscription(Empty)", "finished"])
    }

    @Test func demandAndCancelPassThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        upstream.breakpoint().subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        subscriber.cancel()
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.values == [1])
    }

    @Test func aPassThroughSubscriberThatChecksEveryEvent() {
        // As Apple's: no subscription of its own (the upstream's is passed on), a subscriber
        // described as "Breakpoint" with an empty mirror, and every event checked and passed on
        // — even after a completion.
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(5))
        var received: (any Subscription)?
        let traps = countingTraps {
            upstream.breakpoint(receiveOutput: { $0 < 0 }).subscribe(subscriber)
            received = subscriber.subscription
            upstream.send(completion: .finished)
            upstream.send(-1)
        }
        #expect(traps == 1)
        #expect(received as? ManualPublisher<Int, Never>.Subscription === upstream.subscription)
        #expect(upstream.subscriberDescription == "Breakpoint")
        #expect(upstream.subscription.requests == [.max(5)])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().breakpoint() }
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        #expect(type(of: subject.breakpointOnError()) == Publishers.Breakpoint<PassthroughSubject<Int, Never>>.self)
    }
}
