import SluiceCore
import Testing

/// A scheduler that records how its requirements are called.
private final class RecordingScheduler: Scheduler, @unchecked Sendable {
    struct Time: Strideable, Hashable {
        var value: Int
        func distance(to other: Time) -> Stride { Stride(value: other.value - value) }
        func advanced(by n: Stride) -> Time { Time(value: value + n.value) }

        struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable {
            var value: Int
            init(value: Int) { self.value = value }
            init(integerLiteral value: Int) { self.value = value }
            init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                self.value = value
            }
            var magnitude: Int { abs(value) }
            static func seconds(_ s: Int) -> Stride { Stride(value: s * 1_000) }
            static func seconds(_ s: Double) -> Stride { Stride(value: Int(s * 1_000)) }
            static func milliseconds(_ ms: Int) -> Stride { Stride(value: ms) }
            static func microseconds(_ us: Int) -> Stride { Stride(value: us / 1_000) }
            static func nanoseconds(_ ns: Int) -> Stride { Stride(value: ns / 1_000_000) }
            static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.value < rhs.value }
            static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(value: lhs.value + rhs.value) }
            static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(value: lhs.value - rhs.value) }
            static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(value: lhs.value * rhs.value) }
            static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
        }
    }
    struct Options: Equatable { var tag: String }

    var calls: [String] = []
    let now = Time(value: 100)
    let minimumTolerance = Time.Stride(value: 7)

    func schedule(options: Options?, _ action: @escaping () -> Void) {
        calls.append("now options:\(options?.tag ?? "nil")")
        action()
    }
    func schedule(after date: Time, tolerance: Time.Stride, options: Options?, _ action: @escaping () -> Void) {
        calls.append("after:\(date.value) tolerance:\(tolerance.value) options:\(options?.tag ?? "nil")")
        action()
    }
    func schedule(after date: Time, interval: Time.Stride, tolerance: Time.Stride, options: Options?,
                  _ action: @escaping () -> Void) -> any Cancellable {
        calls.append("after:\(date.value) interval:\(interval.value) tolerance:\(tolerance.value) options:\(options?.tag ?? "nil")")
        action()
        return AnyCancellable {}
    }
}

@Suite("Scheduler")
struct SchedulerTests {
    @Test func conveniencesFillInOptionsAndTolerance() {
        let scheduler = RecordingScheduler()
        var runs = 0
        scheduler.schedule { runs += 1 }
        scheduler.schedule(after: scheduler.now) { runs += 1 }
        scheduler.schedule(after: scheduler.now, tolerance: .milliseconds(3)) { runs += 1 }
        _ = scheduler.schedule(after: scheduler.now, interval: .seconds(2), tolerance: .milliseconds(1)) { runs += 1 }
        _ = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), interval: .milliseconds(5)) { runs += 1 }
        #expect(runs == 5)
        #expect(scheduler.calls == [
            "now options:nil",
            "after:100 tolerance:7 options:nil",
            "after:100 tolerance:3 options:nil",
            "after:100 interval:2000 tolerance:1 options:nil",
            "after:1100 interval:5 tolerance:7 options:nil",
        ])
    }

    @Test func requirementsReceiveExplicitOptions() {
        let scheduler = RecordingScheduler()
        scheduler.schedule(options: .init(tag: "x")) {}
        #expect(scheduler.calls == ["now options:x"])
    }
}
