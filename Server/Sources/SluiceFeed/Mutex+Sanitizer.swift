#if Server
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Thread Sanitizer's annotations of a lock's hand-over, found at run time: present when the
/// program runs under the sanitizer (`swift test --sanitize=thread` exports them), `nil` otherwise.
///
/// `Mutex` hands its lock from one thread to the next inside the standard library, which the
/// sanitizer does not see: without these, what one holder wrote and the next one reads would be
/// reported as a race.
enum ThreadSanitizer {
    typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// `__tsan_acquire`: what the last holder did before its release happens before what follows.
    static let acquire = annotation("__tsan_acquire")
    /// `__tsan_release`: the holder is about to let go.
    static let release = annotation("__tsan_release")

    private static func annotation(_ name: String) -> Annotation? {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }   // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: Annotation.self)
        #else
        return nil
        #endif
    }
}

extension Mutex {
    /// `withLock`, with the lock's hand-over told to Thread Sanitizer when the program runs under
    /// it; `owner` (the object the mutex is a field of) stands for the lock in its annotations.
    package borrowing func withLock<Result: Sendable>(of owner: AnyObject, _ body: (inout Value) -> Result) -> Result {
        withLock { value in
            let address = Unmanaged.passUnretained(owner).toOpaque()
            ThreadSanitizer.acquire?(address)
            defer { ThreadSanitizer.release?(address) }
            return body(&value)
        }
    }
}
#endif
