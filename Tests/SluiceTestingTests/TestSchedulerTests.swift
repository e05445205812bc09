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

    @Test func actionsDueAtTheSameInstantRunInSchedulingOrder() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        var log: [Int] = []
        for index in 0..<1_000 {
            if index.isMultiple(of: 3) {
                scheduler.schedule { log.append(index) }
            } else {
                scheduler.schedule(after: scheduler.now) { log.append(index) }
            }
        }
        scheduler.advance()
        #expect(log == Array(0..<1_000))
    }

    @Test func workScheduledWhileRunningTakesItsPlaceByDateThenBySchedulingOrder() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        let instant = VirtualTime(nanoseconds: 10)
        var log: [String] = []
        scheduler.schedule(after: instant) {
            log.append("a")
            scheduler.schedule { log.append("d") }
            scheduler.schedule(after: instant) { log.append("e") }
            // Already past: due at its own date, earlier than everything else waiting.
            scheduler.schedule(after: VirtualTime(nanoseconds: 5)) { log.append("f") }
        }
        scheduler.schedule(after: instant) { log.append("b") }
        scheduler.schedule(after: instant) { log.append("c") }
        scheduler.advance(to: instant)
        #expect(log == ["a", "f", "b", "c", "d", "e"])
        #expect(scheduler.now == instant)
    }

    @Test func aRepeatingActionKeepsItsSchedulingPlaceAmongOneShotActions() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        var log: [String] = []
        scheduler.schedule(after: at(20)) { log.append("a@20") }
        let ticking = scheduler.schedule(after: at(10), interval: .nanoseconds(10)) {
            log.append("tick@\(scheduler.now.nanoseconds)")
            if scheduler.now == at(10) {
                scheduler.schedule(after: at(20)) { log.append("x@20") }
            }
        }
        scheduler.schedule(after: at(10)) { log.append("b@10") }
        scheduler.schedule(after: at(20)) { log.append("y@20") }
        scheduler.schedule(after: at(30)) { log.append("c@30") }
        scheduler.advance(to: at(30))
        #expect(log == ["tick@10", "b@10", "a@20", "tick@20", "y@20", "x@20", "tick@30", "c@30"])
        #expect(scheduler.pendingCount == 1)
        ticking.cancel()
        scheduler.advance(to: at(100))
        #expect(log.count == 8)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func pendingCountCountsRepeatingActionsOnceAndCancelledOnesNotAtAll() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        let first = scheduler.schedule(after: at(10), interval: .nanoseconds(10)) {}
        let second = scheduler.schedule(after: at(10), interval: .nanoseconds(7)) {}
        scheduler.schedule(after: at(15)) {}
        #expect(scheduler.pendingCount == 3)
        scheduler.advance(to: at(50))
        #expect(scheduler.pendingCount == 2)
        first.cancel()
        #expect(scheduler.pendingCount == 1)
        first.cancel()
        #expect(scheduler.pendingCount == 1)
        second.cancel()
        #expect(scheduler.pendingCount == 0)
        scheduler.run()
        #expect(scheduler.now == at(50))
    }

    @Test func aRepeatingActionCancelledByEarlierWorkAtTheSameInstantDoesNotRunThen() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        var ticks = 0
        var repeating: (any Cancellable)?
        scheduler.schedule(after: at(10)) { repeating?.cancel() }
        repeating = scheduler.schedule(after: at(10), interval: .nanoseconds(10)) { ticks += 1 }
        scheduler.advance(to: at(100))
        #expect(ticks == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func aRepeatingActionThatCancelsItselfRunsNoMore() {
        let scheduler = TestScheduler<VirtualTime, Never>()
        var ticks: [Int] = []
        var repeating: (any Cancellable)?
        repeating = scheduler.schedule(after: at(10), interval: .nanoseconds(10)) {
            ticks.append(scheduler.now.nanoseconds)
            if ticks.count == 3 { repeating?.cancel() }
        }
        scheduler.advance(to: at(100))
        #expect(ticks == [10, 20, 30])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func twentyThousandActionsAtRandomTimesRunInOrderOfDateThenOfScheduling() {
        var random = SeededGenerator(seed: 0x5EED_0001)
        let scheduler = TestScheduler<VirtualTime, Never>()
        let count = 20_000
        // Few distinct instants, so that many actions share each one.
        let dates = (0..<count).map { _ in Int.random(in: 0..<2_000, using: &random) }
        var ran: [(index: Int, at: Int)] = []
        for (index, date) in dates.enumerated() {
            scheduler.schedule(after: at(date)) { ran.append((index, scheduler.now.nanoseconds)) }
        }
        #expect(scheduler.pendingCount == count)
        let expected = dates.indices.sorted { (dates[$0], $0) < (dates[$1], $1) }

        scheduler.advance(to: at(999))
        let dueByThen = expected.filter { dates[$0] <= 999 }
        #expect(ran.map(\.index) == dueByThen)
        #expect(scheduler.pendingCount == count - dueByThen.count)

        scheduler.run()
        #expect(ran.map(\.index) == expected)
        #expect(ran.allSatisfy { $0.at == dates[$0.index] })
        #expect(scheduler.pendingCount == 0)
    }

    @Test func manyRepeatingActionsCancelledAtRandomNeverRunAgainWhileTheRestRunInOrder() {
        var random = SeededGenerator(seed: 0x5EED_0002)
        let scheduler = TestScheduler<VirtualTime, Never>()
        let count = 20_000
        // A quarter repeating (start, interval), the rest one-shot (date, no interval).
        let plans: [(start: Int, interval: Int?)] = (0..<count).map { _ in
            Int.random(in: 0..<4, using: &random) == 0
                ? (Int.random(in: 0..<1_000, using: &random), Int.random(in: 10..<200, using: &random))
                : (Int.random(in: 0..<2_000, using: &random), nil)
        }
        var log: [(index: Int, at: Int)] = []
        var handles: [Int: any Cancellable] = [:]
        for (index, plan) in plans.enumerated() {
            let action = { log.append((index, scheduler.now.nanoseconds)) }
            if let interval = plan.interval {
                handles[index] = scheduler.schedule(after: at(plan.start), interval: .nanoseconds(interval), action)
            } else {
                scheduler.schedule(after: at(plan.start), action)
            }
        }
        let repeating = handles.keys.sorted()
        let oneShots = count - repeating.count

        // Half the repeating ones cancelled before the clock moves.
        let cancelledAtOnce = repeating.filter { _ in Bool.random(using: &random) }
        for index in cancelledAtOnce { handles[index]!.cancel() }
        #expect(scheduler.pendingCount == count - cancelledAtOnce.count)

        // Half of the others cancelled at 1000 by an action scheduled after them all: each runs
        // at 1000 if due then, and never after.
        let cancelledAtOnceSet = Set(cancelledAtOnce)
        let cancelledInside = repeating.filter { !cancelledAtOnceSet.contains($0) && Bool.random(using: &random) }
        scheduler.schedule(after: at(1_000)) {
            for index in cancelledInside { handles[index]!.cancel() }
        }
        scheduler.advance(to: at(1_000))
        let cancelledInsideSet = Set(cancelledInside)
        let stillRepeating = repeating.count - cancelledAtOnce.count - cancelledInside.count
        let oneShotsLeft = plans.filter { $0.interval == nil && $0.start > 1_000 }.count
        #expect(scheduler.pendingCount == oneShotsLeft + stillRepeating)

        // The rest cancelled at 3000, after every one-shot action has run.
        scheduler.advance(to: at(3_000))
        #expect(scheduler.pendingCount == stillRepeating)
        for index in repeating where !cancelledAtOnceSet.contains(index) && !cancelledInsideSet.contains(index) {
            handles[index]!.cancel()
        }
        #expect(scheduler.pendingCount == 0)
        scheduler.run()
        #expect(scheduler.now == at(3_000))

        var expected: [(index: Int, at: Int)] = []
        for (index, plan) in plans.enumerated() {
            guard let interval = plan.interval else {
                expected.append((index, plan.start))
                continue
            }
            if cancelledAtOnceSet.contains(index) { continue }
            let end = cancelledInsideSet.contains(index) ? 1_000 : 3_000
            for date in stride(from: plan.start, through: end, by: interval) {
                expected.append((index, date))
            }
        }
        expected.sort { ($0.at, $0.index) < ($1.at, $1.index) }
        #expect(!log.contains { cancelledAtOnceSet.contains($0.index) })
        #expect(!log.contains { cancelledInsideSet.contains($0.index) && $0.at > 1_000 })
        #expect(log.filter { plans[$0.index].interval == nil }.count == oneShots)
        #expect(log.map(\.index) == expected.map(\.index))
        #expect(log.map(\.at) == expected.map(\.at))
    }

    @Test func survivorsOfMassCancellationRunInOrderOfDateThenOfScheduling() {
        var random = SeededGenerator(seed: 0x5EED_0003)
        let scheduler = TestScheduler<VirtualTime, Never>()
        let count = 2_000
        let starts = (0..<count).map { _ in Int.random(in: 0..<100, using: &random) }
        var log: [(index: Int, at: Int)] = []
        let handles = starts.enumerated().map { index, start in
            scheduler.schedule(after: at(start), interval: .nanoseconds(50)) {
                log.append((index, scheduler.now.nanoseconds))
            }
        }
        // Nine in ten cancelled, in random order.
        let cancelled = Set((0..<count).shuffled(using: &random).prefix(count * 9 / 10))
        for index in (0..<count).shuffled(using: &random) where cancelled.contains(index) {
            handles[index].cancel()
        }
        let survivors = (0..<count).filter { !cancelled.contains($0) }
        #expect(scheduler.pendingCount == survivors.count)

        scheduler.advance(to: at(199))
        var expected: [(index: Int, at: Int)] = []
        for index in survivors {
            for date in stride(from: starts[index], through: 199, by: 50) { expected.append((index, date)) }
        }
        expected.sort { ($0.at, $0.index) < ($1.at, $1.index) }
        #expect(log.map(\.index) == expected.map(\.index))
        #expect(log.map(\.at) == expected.map(\.at))
        #expect(scheduler.pendingCount == survivors.count)
        for handle in handles { handle.cancel() }
        #expect(scheduler.pendingCount == 0)
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

/// The instant `nanoseconds` after zero.
private func at(_ nanoseconds: Int) -> VirtualTime {
    VirtualTime(nanoseconds: nanoseconds)
}
