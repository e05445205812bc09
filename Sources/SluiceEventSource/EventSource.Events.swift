import Foundation
// Apple's Combine on Apple's systems; Sluice elsewhere (not `canImport(Combine)` alone: off
// Apple's systems the package's own `Combine` module may be built beside this one).
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

extension EventSource {
    /// An ``EventSource``'s events as an `AsyncSequence` (see ``EventSource/events``).
    public struct Events: AsyncSequence, Sendable {
        /// The values: events and Sluice's control events.
        public typealias Element = Event

        /// The event source iterated.
        public let source: EventSource

        /// A new iterator: a connection of its own, opened at its first `next()`.
        public func makeAsyncIterator() -> Iterator {
            Iterator(box: IteratorBox(source.isValid ? { EventSourceConnector.driver(for: source, consumer: $0) } : nil))
        }

        /// Iterates the events of one connection to an ``EventSource``.
        public struct Iterator: AsyncIteratorProtocol {
            let box: IteratorBox

            /// The next event; `nil` once the stream finished (status 204) or the task was
            /// cancelled.
            ///
            /// - Throws: An ``EventSourceError`` if the stream failed.
            public mutating func next() async throws -> Event? {
                try await box.next()
            }
        }
    }
}

/// An iterator's connection: the driver of an ``EventSource`` or an ``EventSocket``, asked for one
/// event per `next()`.
final class IteratorBox: Sendable {
    private enum State {
        case ready
        case waiting(CheckedContinuation<EventSource.Event?, any Error>)
        case ended(EventSourceError?)
    }

    private let state = Locked(State.ready)
    private let driver = Locked<(any Subscription)?>(nil)

    /// An iterator of the subscription `makeDriver` makes for a consumer (`nil`: the request is
    /// invalid, and the first `next()` throws ``EventSourceError/invalidRequest``).
    init(_ makeDriver: ((EventSourceConsumer) -> any Subscription)?) {
        guard let makeDriver else {
            state.withLock { $0 = .ended(.invalidRequest) }
            return
        }
        let consumer = EventSourceConsumer(
            receive: { [weak self] event in self?.resume(with: .success(event)); return .none },
            complete: { [weak self] completion in
                switch completion {
                case .finished: self?.resume(with: .success(nil))
                case .failure(let error): self?.resume(with: .failure(error))
                }
            })
        let made = makeDriver(consumer)
        driver.withLock { $0 = made }
    }

    deinit {
        driver.withLock { $0 }?.cancel()
    }

    func next() async throws -> EventSource.Event? {
        let driver = self.driver.withLock { $0 }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<EventSource.Event?, any Error>) in
                let proceed: Bool = state.withLock { state in
                    switch state {
                    case .ready:
                        state = .waiting(continuation)
                        return true
                    case .ended(let error):
                        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) }
                        return false
                    case .waiting:
                        preconditionFailure("EventSource.Events.Iterator: next() called while a call is pending")
                    }
                }
                if proceed {
                    if Task.isCancelled { cancel() } else { driver?.request(.max(1)) }
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the iteration: the connection is closed, a pending `next()` returns `nil`.
    private func cancel() {
        driver.withLock { $0 }?.cancel()
        resume(with: .success(nil))
    }

    /// Resumes the pending `next()` with `result` (an end also ends the iteration).
    private func resume(with result: Result<EventSource.Event?, EventSourceError>) {
        let continuation: CheckedContinuation<EventSource.Event?, any Error>? = state.withLock { state in
            guard case .waiting(let continuation) = state else {
                if case .ready = state, case .success(nil) = result { state = .ended(nil) }
                if case .ready = state, case .failure(let error) = result { state = .ended(error) }
                return nil
            }
            switch result {
            case .success(.some): state = .ready
            case .success(nil): state = .ended(nil)
            case .failure(let error): state = .ended(error)
            }
            return continuation
        }
        continuation?.resume(with: result.mapError { $0 as any Error })
    }
}
