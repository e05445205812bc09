#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

import SluiceCore

// The kit calls into the publisher under test only from threads of its own, never from the
// caller's task: a call that deadlocks then costs one parked thread, not a thread of the
// cooperative pool (which would hang the whole test run). The async side waits on those threads
// with a watchdog, so a hang is reported instead of waited for.

/// An identifier of the current thread, comparable while both threads are alive.
func contractThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

/// Blocks the current thread for good: used to stop a runaway publisher that keeps delivering to
/// an abandoned scenario on one of the kit's own threads (cheaper than letting it spin).
func parkContractThreadForever() -> Never {
    while true {
        _ = sleep(3600)
    }
}

/// Starts a detached thread that runs `body` once.
func startContractThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    let result = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
        return nil
    }, context)
    precondition(result == 0, "PublisherContract: could not start a thread (error \(result))")
    pthread_detach(thread!)
    #else
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, context)
    precondition(result == 0, "PublisherContract: could not start a thread (error \(result))")
    pthread_detach(thread)
    #endif
}

/// A flag that is set once, which async callers can wait for with a deadline (several times,
/// from several tasks).
final class ContractSignal: Sendable {
    private enum Waiter {
        case waiting(CheckedContinuation<Bool, Never>)
        case expired
    }

    private struct State {
        var isSet = false
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
    }

    private let state = Protected(State())

    /// Sets the flag and wakes every waiter; later calls do nothing.
    func set() {
        let continuations = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard !state.isSet else { return [] }
            state.isSet = true
            defer { state.waiters = [:] }
            return state.waiters.values.compactMap { if case .waiting(let continuation) = $0 { continuation } else { nil } }
        }
        for continuation in continuations { continuation.resume(returning: true) }
    }

    /// Whether the flag is set.
    var isSet: Bool { state.withLock { $0.isSet } }

    /// Waits until the flag is set (`true`) or `timeout` has passed (`false`).
    func wait(timeout: Duration) async -> Bool {
        let id = state.withLock { state -> Int? in
            guard !state.isSet else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        let timer = Task { [self] in
            do {
                try await Task.sleep(for: timeout)
                expire(id)
            } catch {}
        }
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let immediate = state.withLock { state -> Bool? in
                if state.isSet { return true }
                if case .expired = state.waiters[id] {
                    state.waiters[id] = nil
                    return false
                }
                state.waiters[id] = .waiting(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        timer.cancel()
        return value
    }

    private func expire(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.isSet else { return nil }
            switch state.waiters[id] {
            case .waiting(let continuation):
                state.waiters[id] = nil
                return continuation
            case .expired:
                return nil
            case nil:
                state.waiters[id] = .expired
                return nil
            }
        }
        continuation?.resume(returning: false)
    }
}

/// A thread that runs jobs one after another, in order: the kit's stand-in for "the test's
/// thread" in a scenario. If a job never returns, the worker is abandoned with it.
final class ContractWorker: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`.
    private var jobs: [@Sendable () -> Void] = []
    private var closed = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        startContractThread { [self] in
            while runNextJob() {}
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the next job (waiting for one) and runs it outside the mutex. `false` once closed.
    private func runNextJob() -> Bool {
        pthread_mutex_lock(mutex)
        while jobs.isEmpty && !closed {
            pthread_cond_wait(condition, mutex)
        }
        guard !jobs.isEmpty else {
            pthread_mutex_unlock(mutex)
            return false
        }
        let job = jobs.removeFirst()
        pthread_mutex_unlock(mutex)
        job()
        return true
    }

    /// Queues `job`; `signal` is set once it has returned.
    func submit(_ job: @escaping @Sendable () -> Void, signal: ContractSignal) {
        pthread_mutex_lock(mutex)
        jobs.append {
            job()
            signal.set()
        }
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(condition)
    }

    /// Lets the thread end once its queued jobs are done.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(condition)
    }
}

/// Sleeps the current task, ignoring cancellation (a cancelled verification still finishes its
/// bookkeeping quickly, since every wait is bounded).
func contractSleep(_ duration: Duration) async {
    try? await Task.sleep(for: duration)
}

/// Yields the processor to other threads (a short spin-wait step).
func contractYield() {
    _ = sched_yield()
}

/// Lingers for a tenth of a millisecond (the probe, inside `receive` in the concurrent scenario).
func contractDwell() {
    _ = usleep(100)
}

/// Sleeps the current thread for `microseconds` (the canceller of `cancelFromAnotherThread`).
func contractSleep(microseconds: UInt32) {
    _ = usleep(microseconds)
}
