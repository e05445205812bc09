import Foundation
import Sluice

extension DispatchQueue {
    /// A virtual-time ``TestScheduler`` with `DispatchQueue`'s time and options types, its clock
    /// at uptime 1 ns: hand it to code that is generic over its scheduler where it would get a
    /// real queue in production.
    public static var test: TestScheduler<SchedulerTimeType, SchedulerOptions> {
        TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }
}

extension RunLoop {
    /// A virtual-time ``TestScheduler`` with `RunLoop`'s time and options types, its clock at the
    /// reference date.
    public static var test: TestScheduler<SchedulerTimeType, SchedulerOptions> {
        TestScheduler(now: SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 0)))
    }
}

extension OperationQueue {
    /// A virtual-time ``TestScheduler`` with `OperationQueue`'s time and options types, its clock
    /// at the reference date.
    public static var test: TestScheduler<SchedulerTimeType, SchedulerOptions> {
        TestScheduler(now: SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 0)))
    }
}
