import SluiceCore
import SluiceTesting
import Testing

@Suite struct TestSchedulerTests {
    @Test func actionsRunInOrderOfDateThenOfScheduling() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        var log: [String] = []
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(20))) { log.append("b") }
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(10))) { log.append("a") }
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(20))) { log.append("c") }
        scheduler.schedule { log.append("now") }
        #expect(log.isEmpty)
        scheduler.advance(by: .milliseconds(15))
        #expect(log == ["now", "a"])
        #expect(scheduler.now == VirtualTime(nanoseconds: 15_000_000))
        scheduler.advance(by: .milliseconds(5))
        #expect(log == ["now", "a", "b", "c"])
    }

    @Test func workScheduledByAnActionRunsInTheSameAdvanceWhenDue() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        var log: [Int] = []
        scheduler.schedule {
            log.append(1)
            scheduler.schedule { log.append(2) }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append(3) }
        }
        scheduler.advance()
        #expect(log == [1, 2])
        scheduler.run()
        #expect(log == [1, 2, 3])
        #expect(scheduler.now == VirtualTime(nanoseconds: 1_000_000_000))
    }

    @Test func repeatingSchedulesRunUntilCancelled() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        var ticks: [VirtualTime] = []
        let cancellable = scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(10)), interval: .milliseconds(10)) {
            ticks.append(scheduler.now)
        }
        scheduler.advance(by: .milliseconds(35))
        #expect(ticks.map(\.nanoseconds) == [10_000_000, 20_000_000, 30_000_000])
        cancellable.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(ticks.count == 3)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func advanceToThePastRunsWhatIsDueAndKeepsTheClock() {
        let scheduler = TestScheduler<VirtualTime, Never>(now: VirtualTime(nanoseconds: 100))
        var ran = false
        scheduler.schedule(after: VirtualTime(nanoseconds: 50)) { ran = true }
        scheduler.advance(to: VirtualTime(nanoseconds: 10))
        #expect(ran)
        #expect(scheduler.now == VirtualTime(nanoseconds: 100))
    }

    @Test func strideLiteralsAreSeconds() {
        let oneAndAHalf: VirtualTime.Stride = 1.5
        let two: VirtualTime.Stride = 2
        #expect(oneAndAHalf.magnitude == 1_500_000_000)
        #expect(two == .seconds(2))
        #expect(VirtualTime.Stride.milliseconds(1) + .microseconds(1) == .nanoseconds(1_001_000))
        #expect(VirtualTime.zero.distance(to: VirtualTime(nanoseconds: 5)) == .nanoseconds(5))
    }
}
