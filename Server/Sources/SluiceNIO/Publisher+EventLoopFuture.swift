#if Server
import NIOCore
import Sluice
import NIOConcurrencyHelpers

/// The error of a future made from a publisher that finished without a value.
public struct PublisherFinishedWithoutValueError: Error, Sendable, Equatable {
    /// The error.
    public init() {}
}

/// The error of a future whose subscription was cancelled through the `AnyCancellable` that
/// ``SluiceCore/Publisher/cascadeFirstValue(to:)`` returned.
public struct PublisherSubscriptionCancelledError: Error, Sendable, Equatable {
    /// The error.
    public init() {}
}

extension Publisher where Output: Sendable {
    /// The publisher's first value as a future on `eventLoop`.
    ///
    /// Subscribes at once and requests one value; on that value, cancels the subscription and
    /// succeeds the future. A failure fails the future with the publisher's error; finishing
    /// without a value fails it with ``PublisherFinishedWithoutValueError``. If `eventLoop` shuts
    /// down first, the subscription is cancelled and the future fails with
    /// `EventLoopError.shutdown`; if it had shut down already, the future is failed at once.
    ///
    /// A NIO future cannot be cancelled by whoever holds it: to stop waiting, use
    /// ``cascadeFirstValue(to:)``, which returns a cancellable.
    public func firstValueFuture(on eventLoop: any EventLoop) -> EventLoopFuture<Output> {
        let liveness = LoopLiveness.of(eventLoop)
        guard liveness.isOpen else { return eventLoop.makeFailedFuture(EventLoopError.shutdown) }
        let promise = eventLoop.makePromise(of: Output.self)
        _ = FutureBridge.attach(self, to: promise, liveness: liveness, keepValues: true)
        return promise.futureResult
    }

    /// Completes `promise` with the publisher's first value, as ``firstValueFuture(on:)`` does, and
    /// returns a cancellable: cancelling it (or releasing it) cancels the subscription and fails the
    /// promise with ``PublisherSubscriptionCancelledError``, if it was not completed already.
    public func cascadeFirstValue(to promise: EventLoopPromise<Output>) -> AnyCancellable {
        let liveness = LoopLiveness.of(promise.futureResult.eventLoop)
        guard liveness.isOpen else { return AnyCancellable {} }
        let bridge = FutureBridge.attach(self, to: promise, liveness: liveness, keepValues: true)
        return AnyCancellable { bridge.cancelled() }
    }
}

extension Publisher {
    /// The publisher's completion as a future on `eventLoop`: succeeds when it finishes, fails
    /// with its error. Values are requested without limit and dropped. Loop shutdown fails the
    /// future with `EventLoopError.shutdown` and cancels the subscription, as
    /// ``firstValueFuture(on:)`` does.
    public func completionFuture(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let liveness = LoopLiveness.of(eventLoop)
        guard liveness.isOpen else { return eventLoop.makeFailedFuture(EventLoopError.shutdown) }
        let promise = eventLoop.makePromise(of: Void.self)
        _ = FutureBridge.attach(map { _ in () }, to: promise, liveness: liveness, keepValues: false)
        return promise.futureResult
    }
}

/// The subscriber behind the futures made from publishers: completes its promise once, from the
/// first value (or the completion), a loop shutdown or a cancel, whichever comes first.
///
/// A promise is completed on its loop: called elsewhere, NIO hands the completion to the loop as a
/// task. The shutdown handler stays registered until that task has run, so a loop that stops in
/// between still fails the promise on its own thread (NIO ignores a second completion); a promise
/// is never left unfulfilled, which NIO's debug builds treat as a leak.
final class FutureBridge<Value: Sendable>: Subscriber, @unchecked Sendable {
    typealias Input = Value
    typealias Failure = any Error

    private enum State {
        case waiting(Subscription?)
        case done
    }

    private let promise: EventLoopPromise<Value>
    private let liveness: LoopLiveness
    private let keepValues: Bool
    private let state = NIOLockedValueBox<State>(.waiting(nil))
    private let handlerID = NIOLockedValueBox<UInt64?>(nil)

    private init(promise: EventLoopPromise<Value>, liveness: LoopLiveness, keepValues: Bool) {
        self.promise = promise
        self.liveness = liveness
        self.keepValues = keepValues
    }

    static func attach<P: Publisher>(_ publisher: P, to promise: EventLoopPromise<Value>, liveness: LoopLiveness,
                                     keepValues: Bool) -> FutureBridge where P.Output == Value {
        let bridge = FutureBridge(promise: promise, liveness: liveness, keepValues: keepValues)
        let id = liveness.onShutdown(UncheckedAction { [bridge] in bridge.loopDidShutDown() })
        guard let id else {
            // Shut down in the instant since the caller looked: fail the promise all the same (NIO
            // may print that the loop is gone; a promise left unfulfilled would trap in its debug
            // builds).
            promise.fail(EventLoopError.shutdown)
            return bridge
        }
        bridge.handlerID.withLockedValue { $0 = id }
        publisher.mapError { $0 as any Error }.subscribe(bridge)
        return bridge
    }

    func receive(subscription: Subscription) {
        let keep = state.withLockedValue { state -> Bool in
            guard case .waiting(nil) = state else { return false }
            state = .waiting(subscription)
            return true
        }
        guard keep else { return subscription.cancel() }
        subscription.request(keepValues ? .max(1) : .unlimited)
    }

    func receive(_ input: Value) -> Subscribers.Demand {
        if keepValues { finish(.success(input)) }
        return .none
    }

    func receive(completion: Subscribers.Completion<any Error>) {
        switch completion {
        case .finished:
            // `completionFuture`'s Value is Void.
            if let done = () as? Value { finish(.success(done)) }
            else { finish(.failure(PublisherFinishedWithoutValueError())) }
        case .failure(let error):
            finish(.failure(error))
        }
    }

    /// On the loop's thread as it stops: fails the promise even when a completion handed to the
    /// loop as a task was dropped with the loop (if it ran, NIO ignores this second completion).
    private func loopDidShutDown() {
        let upstream = state.withLockedValue { state -> Subscription? in
            defer { state = .done }
            guard case .waiting(let subscription) = state else { return nil }
            return subscription
        }
        upstream?.cancel()
        promise.fail(EventLoopError.shutdown)
        forgetShutdownHandler()
    }

    func cancelled() {
        finish(.failure(PublisherSubscriptionCancelledError()))
    }

    private func finish(_ result: Result<Value, any Error>) {
        let upstream = state.withLockedValue { state -> Subscription?? in
            guard case .waiting(let subscription) = state else { return nil }
            state = .done
            return .some(subscription)
        }
        guard let upstream else { return }
        upstream?.cancel()
        let loop = promise.futureResult.eventLoop
        if loop.inEventLoop {
            promise.completeWith(result)
            forgetShutdownHandler()
        } else if liveness.isOpen {
            loop.execute { [self] in
                promise.completeWith(result)
                forgetShutdownHandler()
            }
        } else {
            // The loop has stopped: its shutdown handler has failed the promise (or will, on the
            // loop's thread, moments from now).
        }
    }

    private func forgetShutdownHandler() {
        if let id = handlerID.withLockedValue({ $0.take() }) { liveness.removeShutdownHandler(id) }
    }
}
#endif
