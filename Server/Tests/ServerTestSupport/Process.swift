#if canImport(Glibc)
import CMalloc
#endif
import Foundation
import SluiceFeed

// What the server package's tests share about the process they run in.

/// Whether this process runs under a sanitizer (its runtime's interface is linked in).
public let runsUnderSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__sanitizer_get_current_allocated_bytes") != nil

/// Resident memory of this process, in bytes (`/proc/self/statm`).
public func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// The bytes this process's allocator has handed out and not had back (glibc's `mallinfo2`: its
/// arenas' chunks in use and its mapped ones), at the lowest of `samples` readings `interval` apart:
/// what other tests running in the same process allocate for a moment is not counted as held.
/// Resident bytes elsewhere (`residentBytes()`: no `mallinfo2`).
public func allocatedBytes(lowestOf samples: Int = 10, interval: Duration = .milliseconds(100)) async -> Int {
    var lowest = Int.max
    for sample in 0..<samples {
        if sample > 0 { try? await Task.sleep(for: interval) }
        #if canImport(Glibc)
        let info = mallinfo2()
        lowest = min(lowest, Int(info.uordblks) + Int(info.hblkhd))
        #else
        lowest = min(lowest, residentBytes())
        #endif
    }
    return lowest
}

/// Raises the soft limit on open files to at least `count` (up to the hard limit).
public func ensureFileDescriptors(_ count: Int) {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < rlim_t(count) {
        limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

extension EventFeed {
    /// The id of this feed's event at `position`.
    public func id(_ position: UInt64) -> EventID { EventID(epoch: lastEventID.epoch, position: position) }
}
