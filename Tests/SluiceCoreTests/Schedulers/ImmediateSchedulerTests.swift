import Foundation
import SluiceCore
import Testing

@Suite("ImmediateScheduler")
struct ImmediateSchedulerTests {
    typealias Stride = ImmediateScheduler.SchedulerTimeType.Stride

    let scheduler = ImmediateScheduler.shared

    // MARK: Scheduling

    @Test func runsActionsImmediatelyInOrder() {
        let log = Shared<[String]>([])
        scheduler.schedule { log.mutate { $0.append("a") } }
        log.mutate { $0.append("after a") }
        scheduler.schedule(options: nil) { log.mutate { $0.append("b") } }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(10))) { log.mutate { $0.append("c") } }
        scheduler.schedule(after: scheduler.now, tolerance: .seconds(1), options: nil) { log.mutate { $0.append("d") } }
        #expect(log.value == ["a", "after a", "b", "c", "d"])
    }

    @Test func aRepeatingScheduleRunsOnce() {
        let count = Shared(0)
        let cancellable = scheduler.schedule(after: scheduler.now, interval: .seconds(1), tolerance: 0, options: nil) {
            count.mutate { $0 += 1 }
        }
        #expect(count.value == 1)
        cancellable.cancel()
        cancellable.cancel()
        #expect(count.value == 1)
        _ = scheduler.schedule(after: scheduler.now, interval: 1) { count.mutate { $0 += 1 } }
        #expect(count.value == 2)
    }

    @Test func runsNestedActionsInline() {
        let log = Shared<[Int]>([])
        scheduler.schedule {
            log.mutate { $0.append(1) }
            scheduler.schedule { log.mutate { $0.append(2) } }
            log.mutate { $0.append(3) }
        }
        #expect(log.value == [1, 2, 3])
    }

    @Test func worksAsAGenericScheduler() {
        func run<S: Scheduler>(on scheduler: S, _ action: @escaping () -> Void) {
            scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(5)), action)
        }
        let ran = Shared(false)
        run(on: scheduler) { ran.value = true }
        #expect(ran.value)
    }

    // MARK: Time

    @Test func timeDoesNotMove() {
        let now = scheduler.now
        let later = now.advanced(by: .seconds(100))
        #expect(now.distance(to: later) == 0)
        #expect(later.distance(to: now) == 0)
        #expect(now == later)
        #expect(!(now < later))
        #expect(scheduler.minimumTolerance == 0)
    }

    // MARK: Stride

    @Test func strideLiteralsAndInitializers() {
        let integer: Stride = 3
        let float: Stride = 2.9
        #expect(integer.magnitude == 3)
        #expect(float.magnitude == 2)
        #expect(Stride(7).magnitude == 7)
        #expect(Stride(exactly: UInt8(4))?.magnitude == 4)
        #expect(Stride(exactly: UInt.max) == nil)
    }

    /// Time does not pass on the immediate scheduler: as Apple's, every unit converts to zero.
    @Test func strideConversionsFromUnitsOfTimeAreZero() {
        #expect(Stride.seconds(2) == 0)
        #expect(Stride.seconds(2.5) == 0)
        #expect(Stride.milliseconds(3) == 0)
        #expect(Stride.microseconds(4) == 0)
        #expect(Stride.nanoseconds(5) == 0)
    }

    @Test func strideArithmeticAndComparison() {
        var stride: Stride = 5
        #expect(stride + 2 == 7)
        #expect(stride - 7 == -2)
        #expect(stride * 3 == 15)
        #expect(-stride == -5)
        stride += 1
        #expect(stride == 6)
        stride -= 2
        #expect(stride == 4)
        stride *= 2
        #expect(stride == 8)
        #expect(Stride(1) < Stride(2))
        #expect(Stride(3) > Stride(2))
        #expect([Stride(3), 1, 2].sorted() == [1, 2, 3])
        #expect(Set([Stride(1), 1, 2]).count == 2)
    }

    @Test func strideRoundTripsThroughJSON() throws {
        let stride: Stride = 42
        let decoded = try JSONDecoder().decode(Stride.self, from: JSONEncoder().encode(stride))
        #expect(decoded == stride)
    }
}
