import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process has used, for `GET /stats`, and the clock the benchmark's events carry.
enum ProcessUsage {
    /// User and system CPU time of the whole process so far (`getrusage(RUSAGE_SELF)`), in seconds.
    static var cpuSeconds: Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Resident memory in bytes: the second field of `/proc/self/statm` (pages) × the page size;
    /// 0 where there is no `/proc`.
    static var residentBytes: Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds: the clock a load generator on the same
    /// machine reads to measure each event's delivery latency.
    static var monotonicNanoseconds: UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Sleeps until `CLOCK_MONOTONIC` reads `deadline` (nanoseconds), or returns at once if it has.
    static func sleep(untilMonotonic deadline: UInt64) {
        var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
    }
}
