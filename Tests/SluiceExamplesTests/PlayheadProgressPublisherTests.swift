import Foundation
import Sluice
import SluiceExamples
import SluiceTesting
import Testing

@Suite("PlayheadProgressPublisher")
struct PlayheadProgressPublisherTests {
    @Test func observesNothingBeforeDemand() {
        let player = Player()
        let subscriber = TestSubscriber<TimeInterval, Never>(initialDemand: .none)
        player.playheadProgressPublisher().subscribe(subscriber)
        #expect(player.timeObserverCount == 0)
        player.advance(by: 1)
        #expect(subscriber.values.isEmpty)
    }

    @Test func unlimitedDemandGetsEveryTick() {
        let player = Player()
        let subscriber = TestSubscriber<TimeInterval, Never>()
        player.playheadProgressPublisher().subscribe(subscriber)
        player.advance(by: 1)
        #expect(subscriber.values == [0.25, 0.5, 0.75, 1.0])
        #expect(subscriber.completion == nil)   // never completes on its own
    }

    @Test func emitsOnlyWhileThereIsDemand() {
        let player = Player()
        let subscriber = TestSubscriber<TimeInterval, Never>(initialDemand: .max(2))
        player.playheadProgressPublisher(interval: 0.5).subscribe(subscriber)
        player.advance(by: 2)                       // ticks 0.5, 1.0, 1.5, 2.0
        #expect(subscriber.values == [0.5, 1.0])    // 1.5 and 2.0 found no demand

        subscriber.request(.max(1))
        player.advance(by: 1)                       // ticks 2.5, 3.0
        #expect(subscriber.values == [0.5, 1.0, 2.5])
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let player = Player()
        let subscriber = TestSubscriber<TimeInterval, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        player.playheadProgressPublisher(interval: 0.5).subscribe(subscriber)
        player.advance(by: 2)
        #expect(subscriber.values == [0.5, 1.0, 1.5, 2.0])
    }

    @Test func cancelRemovesTheObserver() {
        let player = Player()
        let subscriber = TestSubscriber<TimeInterval, Never>()
        player.playheadProgressPublisher(interval: 0.5).subscribe(subscriber)
        #expect(player.timeObserverCount == 1)
        player.advance(by: 0.5)
        subscriber.cancel()
        #expect(player.timeObserverCount == 0)
        player.advance(by: 1)
        #expect(subscriber.values == [0.5])
    }

    @Test func cancelFromInsideReceiveStopsTheRestOfTheTicks() {
        let player = Player()
        let subscriber = TestSubscriber<TimeInterval, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        player.playheadProgressPublisher(interval: 0.5).subscribe(subscriber)
        player.advance(by: 2)
        #expect(subscriber.values == [0.5])
        #expect(player.timeObserverCount == 0)
    }

    @Test func aDeallocatedSubscriptionRemovesItsObserver() {
        let player = Player()
        let subscriber = HoldingSubscriber<TimeInterval, Never>()
        player.playheadProgressPublisher().subscribe(subscriber)
        #expect(player.timeObserverCount == 1)
        subscriber.subscription = nil   // dropped, not cancelled
        #expect(player.timeObserverCount == 0)
    }

    @Test func subscribersAreIndependent() {
        let player = Player()
        let slow = TestSubscriber<TimeInterval, Never>()
        let fast = TestSubscriber<TimeInterval, Never>()
        player.playheadProgressPublisher(interval: 1).subscribe(slow)
        player.playheadProgressPublisher(interval: 0.5).subscribe(fast)
        player.advance(by: 2)
        #expect(slow.values == [1, 2])
        #expect(fast.values == [0.5, 1, 1.5, 2])
    }

    @Test func aPlayerObserverFiresAtEachIntervalPassed() {
        let player = Player()
        player.advance(by: 0.6)
        let times = Locked<[TimeInterval]>([])
        let token = player.addPeriodicTimeObserver(forInterval: 0.5, queue: nil) { time in times.update { $0.append(time) } }
        player.advance(by: 0.9)       // 0.6 → 1.5: ticks 1.0, 1.5
        player.removeTimeObserver(token)
        player.advance(by: 1)
        #expect(times.value == [1.0, 1.5])
        #expect(player.currentTime == 2.5)
    }

    // MARK: The contract kit

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            let player = Player()
            return PublisherContract.Fixture(player.playheadProgressPublisher(interval: 0.5)) {
                player.advance(by: 3)
            }
        }
    }
}
