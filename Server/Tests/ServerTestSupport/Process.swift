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
