import Dispatch
import Sluice
import SluiceExamples
import SluiceTesting
import Testing

@Suite("Pep Boys")
struct PepBoysTests {
    // MARK: Without backpressure

    @Test func naivePublisherSendsEverythingWhateverTheDemand() {
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1))
        NaivePepBoys().subscribe(subscriber)
        // One value was requested; three arrived. This is the contract violation the
        // backpressure version fixes.
        #expect(subscriber.values == ["Manny", "Moe", "Jack"])
        #expect(subscriber.values.count > 1)
        #expect(subscriber.completion == .finished)
    }

    @Test func naivePublisherIgnoresReturnedDemandToo() {
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, _ in .none }
        NaivePepBoys().subscribe(subscriber)
        #expect(subscriber.values.count == 3)
    }

    // MARK: With backpressure

    @Test func limitedDemandGetsOnlyWhatItAskedFor() {
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(2))
        PepBoys().subscribe(subscriber)
        #expect(subscriber.values == ["Manny", "Moe"])
        #expect(subscriber.completion == nil)

        subscriber.request(.max(1))
        #expect(subscriber.eventDescriptions == ["subscription(PepBoys)", "value(Manny)", "value(Moe)", "value(Jack)", "finished"])
    }

    @Test func nothingIsSentWithoutDemand() {
        let subscriber = TestSubscriber<String, Never>(initialDemand: .none)
        PepBoys().subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(PepBoys)"])
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let everyTime = TestSubscriber<String, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        PepBoys().subscribe(everyTime)
        #expect(everyTime.values == ["Manny", "Moe", "Jack"])
        #expect(everyTime.completion == .finished)

        // Only Manny adds demand: Manny uses the request, Moe uses what Manny returned.
        let once = TestSubscriber<String, Never>(initialDemand: .max(1))
        once.onValue = { name, _ in name == "Manny" ? .max(1) : .none }
        PepBoys().subscribe(once)
        #expect(once.values == ["Manny", "Moe"])
        #expect(once.completion == nil)
    }

    @Test func unlimitedDemandGetsAllThreeThenFinished() {
        let subscriber = TestSubscriber<String, Never>()
        PepBoys().subscribe(subscriber)
        #expect(subscriber.values == PepBoys.names)
        #expect(subscriber.completion == .finished)
    }

    @Test func nothingAfterCancel() {
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1))
        PepBoys().subscribe(subscriber)
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscription?.request(.max(5))
        #expect(subscriber.values == ["Manny"])
        #expect(subscriber.completion == nil)
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        let subscriber = TestSubscriber<String, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        PepBoys().subscribe(subscriber)
        #expect(subscriber.values == ["Manny"])
        #expect(subscriber.completion == nil)
    }

    @Test func reentrantRequestsKeepOrderAndFinishOnce() {
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        PepBoys().subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(PepBoys)", "value(Manny)", "value(Moe)", "value(Jack)", "finished"])
    }

    @Test func concurrentRequestsDeliverEachNameOnce() {
        for _ in 0..<50 {
            let subscriber = TestSubscriber<String, Never>(initialDemand: .none)
            PepBoys().subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in subscriber.request(.max(1)) }
            #expect(subscriber.values == PepBoys.names)
            #expect(subscriber.events.filter { if case .completion = $0 { true } else { false } }.count == 1)
        }
    }

    @Test func subscriptionReleasesTheSubscriberWhenItFinishes() {
        var subscriber: TestSubscriber<String, Never>? = TestSubscriber(initialDemand: .max(2))
        weak let weakSubscriber = subscriber
        PepBoys().subscribe(subscriber!)
        let subscription = subscriber!.subscription   // keep the subscription alive
        subscriber!.request(.max(1))                  // Jack, finished: the subscription lets go
        subscriber = nil
        #expect(weakSubscriber == nil)
        _ = subscription
    }

    // MARK: The contract kit

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { PepBoys() }
    }
    // NaivePepBoys is deliberately not run through the kit: the tests above show with a
    // TestSubscriber that it breaks the demand rule.
}
