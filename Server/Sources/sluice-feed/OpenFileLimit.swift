#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The open-file limit: one descriptor per client, and the benchmark connects 10,000.
enum OpenFileLimit {
    /// Raises the soft limit to the hard limit (as `ulimit -n hard` would); leaves it if it cannot.
    static func raise() {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }
}
