import SluiceSanitizer

/// A number identifying the calling thread while it runs (never 0): the address of a C11
/// thread-local byte (`sluice_current_thread_id`), the same on every platform. Operators that must
/// tell a re-entrant call on the same thread from a call on another (`subscribe(on:)`'s recursive
/// request trap, `autoconnect`'s re-entrant connect) compare these.
@usableFromInline
func currentThreadIdentity() -> UInt {
    UInt(sluice_current_thread_id())
}
