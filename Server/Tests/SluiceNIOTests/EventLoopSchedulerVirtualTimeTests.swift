import NIOCore
import NIOEmbedded
import Sluice
import SluiceNIO
import SluiceTesting
import Testing

/// The scheduler on an `EmbeddedEventLoop`: time is the loop's, and moves only when the test
/// advances it.
@Suite struct EventLoopSchedulerVirtualTimeTests {
    @Test func timeIsTheLoopsOwnClock() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let scheduler = EventLoopScheduler(loop)
        let start = scheduler.now
        #expect(start.deadline == loop.now)
        loop.advanceTime(by: .seconds(3))
        #expect(start.distance(to: scheduler.now) == .seconds(3))
        #expect(scheduler.minimumTolerance == .zero)
        typealias Stride = EventLoopScheduler.SchedulerTimeType.Stride
        #expect(Stride.milliseconds(1_500) == 1.5)
        #expect(Stride(2).timeAmount == .seconds(2))
        #expect(Stride.seconds(Int.max).magnitude == .max)   // saturates
        #expect(Stride(exactly: 3) == .seconds(3) && Stride(exactly: Int64.max) == nil)
        #expect(start.advanced(by: .microseconds(7)).deadline == start.deadline + .microseconds(7))
        #expect((Stride.seconds(2) * .seconds(3)) == .seconds(6))
    }

    @Test func actionsRunInOrderWhenTheLoopRuns() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let scheduler = EventLoopScheduler(loop)
        var log: [String] = []
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(20))) { log.append("20 ms") }
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(10))) { log.append("10 ms") }
        scheduler.schedule { log.append("now 1") }
        scheduler.schedule { log.append("now 2") }
        #expect(log.isEmpty)   // never inline
        loop.run()
        #expect(log == ["now 1", "now 2"])
        loop.advanceTime(by: .milliseconds(9))
        #expect(log == ["now 1", "now 2"])
        loop.advanceTime(by: .milliseconds(1))
        #expect(log == ["now 1", "now 2", "10 ms"])
        loop.advanceTime(by: .milliseconds(10))
        #expect(log == ["now 1", "now 2", "10 ms", "20 ms"])
    }

    /// Fixed rate: each run is due at start + k × interval however long the previous run took
    /// (here each run makes the loop's clock move 3 ms, as a run that takes 3 ms would); NIO's own
    /// repeated task would drift to 10, 23, 36. (The embedded loop sets its clock back to the end of
    /// the outer `advanceTime` when that returns; the schedule is computed from the run's end.)
    @Test func repeatingRunsAtAFixedRateAndSkipsMissedTicks() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let scheduler = EventLoopScheduler(loop)
        let origin = loop.now
        var ticks: [Int64] = []
        let repeating = scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(10)), interval: .milliseconds(10)) {
            ticks.append((loop.now - origin).nanoseconds / 1_000_000)
            // The run "takes" time: 3 ms, and 25 ms on the fourth run.
            loop.advanceTime(by: .milliseconds(ticks.count == 4 ? 25 : 3))
        }
        loop.advanceTime(by: .milliseconds(35))
        #expect(ticks == [10, 20, 30])
        loop.advanceTime(by: .milliseconds(5))
        #expect(ticks == [10, 20, 30, 40])
        // The fourth run ended at 65: the ticks at 50 and 60 are skipped, the next is at 70.
        loop.advanceTime(by: .milliseconds(30))
        #expect(ticks == [10, 20, 30, 40, 70])
        repeating.cancel()
        loop.advanceTime(by: .milliseconds(100))
        #expect(ticks == [10, 20, 30, 40, 70])
    }

    @Test func cancellingOnTheLoopStopsTheNextRun() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let scheduler = EventLoopScheduler(loop)
        var runs = 0
        var repeating: (any Cancellable)?
        repeating = scheduler.schedule(after: scheduler.now, interval: .milliseconds(1)) {
            runs += 1
            if runs == 2 { repeating?.cancel() }
        }
        loop.advanceTime(by: .milliseconds(10))
        #expect(runs == 2)
        // Releasing the cancellable cancels too, as Dispatch's does.
        var released = 0
        do {
            _ = scheduler.schedule(after: scheduler.now, interval: .milliseconds(1)) { released += 1 }
        }
        loop.advanceTime(by: .milliseconds(10))
        #expect(released == 0)
    }

    @Test func debounceThrottleTimeoutDelayAndCollectByTime() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let scheduler = EventLoopScheduler(loop)
        let subject = PassthroughSubject<Int, Never>()

        let debounced = TestSubscriber<Int, Never>()
        subject.debounce(for: .milliseconds(100), scheduler: scheduler).subscribe(debounced)
        let throttled = TestSubscriber<Int, Never>()
        subject.throttle(for: .milliseconds(100), scheduler: scheduler, latest: true).subscribe(throttled)
        let delayed = TestSubscriber<Int, Never>()
        subject.delay(for: .milliseconds(50), scheduler: scheduler).subscribe(delayed)
        let collected = TestSubscriber<[Int], Never>()
        subject.collect(.byTime(scheduler, .milliseconds(100))).subscribe(collected)

        subject.send(1)
        loop.advanceTime(by: .milliseconds(40))
        subject.send(2)
        loop.advanceTime(by: .milliseconds(40))
        #expect(delayed.values == [1])
        subject.send(3)
        loop.advanceTime(by: .milliseconds(99))
        #expect(debounced.values.isEmpty)
        loop.advanceTime(by: .milliseconds(1))
        #expect(debounced.values == [3])
        #expect(throttled.values == [1, 3])
        #expect(delayed.values == [1, 2, 3])
        #expect(collected.values == [[1, 2, 3]])   // the window of 0 ..< 100 ms
        subject.send(4)
        loop.advanceTime(by: .milliseconds(100))
        #expect(collected.values == [[1, 2, 3], [4]])

        let timedOut = TestSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().timeout(.milliseconds(30), scheduler: scheduler).subscribe(timedOut)
        loop.advanceTime(by: .milliseconds(29))
        #expect(timedOut.completion == nil)
        loop.advanceTime(by: .milliseconds(1))
        #expect(timedOut.completion == .finished)
    }

    /// Shut down, the loop takes nothing more: work is dropped and a repeating schedule is inert.
    @Test func aShutDownLoopDropsWork() throws {
        let loop = EmbeddedEventLoop()
        let scheduler = EventLoopScheduler(loop)
        var log: [String] = []
        scheduler.schedule { log.append("due") }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append("later") }
        let repeating = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(1)) {
            log.append("tick")
        }
        #expect(scheduler.isLoopOpen)
        try loop.syncShutdownGracefully()
        #expect(log == ["due"])   // due work runs as the loop stops; later work is dropped
        #expect(!scheduler.isLoopOpen)
        scheduler.schedule { log.append("after shutdown") }
        scheduler.schedule(after: scheduler.now) { log.append("after shutdown") }
        let late = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { log.append("after shutdown") }
        late.cancel()
        repeating.cancel()
        loop.advanceTime(by: .seconds(5))
        #expect(log == ["due"])
    }
}
