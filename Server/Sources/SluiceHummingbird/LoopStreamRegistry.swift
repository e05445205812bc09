#if Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// The event streams a server serves from its event loops, and the one task that stands for all
/// of them in the server's lifecycle: a connection's task, kept while any stream is open, so that
/// a graceful shutdown reaches every stream (what is buffered, `event: shutdown`, the end; a
/// client that does not take it within its grace is cut off) and the server waits for them, as
/// it waits for its responses' tasks. One task, however many streams.
final class LoopStreamRegistry: Sendable {
    private struct State {
        var streams: [ObjectIdentifier: EventStreamHandler] = [:]
        var watched = false
        var shuttingDown = false
        var emptied: CheckedContinuation<Void, Never>?
        var wakeups: [ObjectIdentifier: LoopWakeups] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Counts `stream` in until its connection closes; `false` once the server shuts down.
    func add(_ stream: EventStreamHandler) -> Bool {
        state.withLockedValue { state in
            guard !state.shuttingDown else { return false }
            state.streams[ObjectIdentifier(stream)] = stream
            return true
        }
    }

    /// The wake-ups of `loop`'s streams (the registry holds the loop as long as itself).
    func wakeups(on loop: any EventLoop) -> LoopWakeups {
        state.withLockedValue { state in
            if let wakeups = state.wakeups[ObjectIdentifier(loop)] { return wakeups }
            let wakeups = LoopWakeups(loop: loop)
            state.wakeups[ObjectIdentifier(loop)] = wakeups
            return wakeups
        }
    }

    /// `stream`'s connection has closed.
    func remove(_ stream: EventStreamHandler) {
        let emptied = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.streams[ObjectIdentifier(stream)] = nil
            guard state.streams.isEmpty else { return nil }
            defer { state.emptied = nil }
            return state.emptied
        }
        emptied?.resume()
    }

    /// Run by each stream connection's task: unless another task watches already, this one
    /// stays until no stream is left — passing a graceful shutdown on to every stream, and
    /// closing every connection if it is cancelled.
    func watch() async {
        guard state.withLockedValue({ state in
            guard !state.watched, !state.streams.isEmpty else { return false }
            state.watched = true
            return true
        }) else { return }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (emptied: CheckedContinuation<Void, Never>) in
                    let now = state.withLockedValue { state -> Bool in
                        guard !state.streams.isEmpty else { return true }
                        state.emptied = emptied
                        return false
                    }
                    if now { emptied.resume() }
                }
            } onGracefulShutdown: {
                self.shutDown()
            }
        } onCancel: {
            for stream in self.state.withLockedValue({ Array($0.streams.values) }) { stream.closeNow() }
        }
        // A stream that came as this task left found it watching: watch for it.
        let again = state.withLockedValue { state -> Bool in
            state.watched = false
            return !state.streams.isEmpty
        }
        if again { await watch() }
    }

    /// Every stream shuts down; new ones are refused.
    private func shutDown() {
        let streams = state.withLockedValue { state in
            state.shuttingDown = true
            return Array(state.streams.values)
        }
        for stream in streams { stream.shutDown() }
    }
}
#endif
