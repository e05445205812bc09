#if Hummingbird
import NIOConcurrencyHelpers

/// An `AsyncSequence` over `base` whose reads can be closed, and awaited: after ``close()``
/// returns, no read of `base` is under way and none starts.
///
/// hummingbird-websocket reads the connection's frames itself once a handler returns (to see the
/// client's close frame), through the same iterator as the handler's inbound stream; a read the
/// handler started in a task of its own (a publisher of the client's messages) must have ended by
/// then, or two reads of one iterator race.
struct GatedReads<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {
    typealias Element = Base.Element

    let base: Base
    let gate = Gate()

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let gate: Gate

        mutating func next() async throws -> Element? {
            guard gate.enter() else { return nil }
            defer { gate.leave() }
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), gate: gate)
    }

    /// Lets no further read start and returns once the one under way (if any) has ended: the
    /// reading task must have been cancelled (a read of the inbound stream ends on cancellation).
    func close() async {
        await gate.close()
    }

    final class Gate: Sendable {
        private struct State {
            var closed = false
            var reading = false
            var waiter: CheckedContinuation<Void, Never>?
        }
        private let state = NIOLockedValueBox(State())

        /// Whether ``close()`` has been called.
        var isClosed: Bool { state.withLockedValue { $0.closed } }

        /// Whether a read may start (and then one is under way until ``leave()``).
        func enter() -> Bool {
            state.withLockedValue { state in
                guard !state.closed else { return false }
                state.reading = true
                return true
            }
        }

        func leave() {
            let waiter = state.withLockedValue { state in
                state.reading = false
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        func close() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let idle = state.withLockedValue { state in
                    state.closed = true
                    if state.reading { state.waiter = continuation }
                    return !state.reading
                }
                if idle { continuation.resume() }
            }
        }
    }
}
#endif
