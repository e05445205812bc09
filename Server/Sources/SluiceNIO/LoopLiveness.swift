#if Server
import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// What SluiceNIO knows of one loop's life: open until the loop shuts down.
///
/// SwiftNIO has no public "is this loop shut down?" and prints an error for work handed to a loop
/// that has. What it does do is cancel every pending timer when a loop stops, on the loop's own
/// thread, before the loop's thread ends: so the first scheduler made for a loop sets a timer for
/// the distant future (a ``ShutdownSentinel``) whose cancellation marks the loop closed and runs the
/// shutdown handlers (a future publisher fails its subscriber, a promise waiting for a publisher is
/// failed — on the loop, where completing a promise needs no further task).
///
/// Its locks are NIO's (`pthread_mutex` underneath), like every lock in SluiceNIO: Thread Sanitizer
/// sees how they hand state from one thread to the next, which it cannot for the standard
/// library's `Mutex` (its lock word lives in the uninstrumented runtime).
final class LoopLiveness: Sendable {
    private let open = Atomic<Bool>(true)
    private let handlers = NIOLockedValueBox<Handlers>(Handlers())

    private struct Handlers {
        var next: UInt64 = 0
        var byID: [UInt64: UncheckedAction] = [:]
    }

    /// `false` once the loop has shut down.
    var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Registers `handler` to run on the loop's thread when the loop shuts down; `nil` (and the
    /// handler is not kept) when it has already.
    func onShutdown(_ handler: UncheckedAction) -> UInt64? {
        handlers.withLockedValue { handlers -> UInt64? in
            guard isOpen else { return nil }
            handlers.next &+= 1
            handlers.byID[handlers.next] = handler
            return handlers.next
        }
    }

    /// Forgets a shutdown handler (its work is done).
    func removeShutdownHandler(_ id: UInt64) {
        _ = handlers.withLockedValue { $0.byID.removeValue(forKey: id) }
    }

    /// The loop has stopped: marks it closed, then runs the handlers (outside the lock).
    func loopDidShutDown() {
        let toRun = handlers.withLockedValue { handlers -> [UncheckedAction] in
            open.store(false, ordering: .releasing)
            defer { handlers.byID = [:] }
            return Array(handlers.byID.values)
        }
        for handler in toRun { handler.run() }
    }

    // MARK: One per loop

    private struct Entry {
        weak var loop: (any EventLoop)?
        let liveness: LoopLiveness
    }

    private static let registry = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    /// The liveness of `loop`, made (and its sentinel set) the first time it is asked for.
    static func of(_ loop: any EventLoop) -> LoopLiveness {
        let key = ObjectIdentifier(loop)
        let (liveness, isNew) = registry.withLockedValue { entries -> (LoopLiveness, Bool) in
            if let entry = entries[key], entry.loop === loop { return (entry.liveness, false) }
            // Loops that are gone (a test's embedded loops) leave; the rest are few and long-lived.
            entries = entries.filter { $0.value.loop != nil }
            let liveness = LoopLiveness()
            entries[key] = Entry(loop: loop, liveness: liveness)
            return (liveness, true)
        }
        if isNew {
            do {
                _ = try loop.scheduleCallback(at: .distantFuture, handler: ShutdownSentinel(liveness: liveness))
            } catch {
                liveness.loopDidShutDown()
            }
        }
        return liveness
    }
}

/// A timer for the distant future that NIO cancels when the loop stops.
struct ShutdownSentinel: NIOScheduledCallbackHandler, Sendable {
    let liveness: LoopLiveness
    func handleScheduledCallback(eventLoop: some EventLoop) {}
    func didCancelScheduledCallback(eventLoop: some EventLoop) { liveness.loopDidShutDown() }
}
#endif
