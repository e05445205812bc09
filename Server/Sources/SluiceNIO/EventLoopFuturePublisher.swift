#if Server
import NIOCore
import Sluice
import NIOConcurrencyHelpers

extension EventLoopFuture where Value: Sendable {
    /// This future as a publisher of one value: see ``EventLoopFuturePublisher``.
    public var publisher: EventLoopFuturePublisher<Value> { EventLoopFuturePublisher(self) }
}

/// An `EventLoopFuture` as a publisher: its value, then `.finished`; or its error as the failure.
///
/// - **Lazy**: nothing is attached to the future until a subscriber subscribes; each subscriber
///   attaches its own callback.
/// - **Demand**: the value is delivered only once the subscriber has requested; a future that
///   completes earlier is held until then. A failure is delivered without demand, as Combine's
///   `Future` does.
/// - **Cancel** before the future completes: nothing is delivered, and the subscriber is released
///   at once (the future keeps only a small record until it completes).
/// - **Loop shutdown**: if the future's loop shuts down before the future completes (NIO never
///   completes it then), the subscriber fails with `EventLoopError.shutdown` rather than waiting
///   forever; subscribing to a future whose loop has already shut down fails the same way, without
///   calling into the dead loop.
/// - Events arrive on the future's event loop.
public struct EventLoopFuturePublisher<Value: Sendable>: Publisher {
    /// The future's value.
    public typealias Output = Value
    /// The future's error.
    public typealias Failure = any Error

    /// The future this publisher publishes.
    public let future: EventLoopFuture<Value>

    /// A publisher of `future`'s result.
    public init(_ future: EventLoopFuture<Value>) {
        self.future = future
    }

    /// Attaches `subscriber` to the future: see the type's description for demand and shutdown.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == any Error {
        let subscription = FutureSubscription(subscriber)
        subscriber.receive(subscription: subscription)
        subscription.attach(to: future)
    }
}

/// The subscription of ``EventLoopFuturePublisher``: a small state machine behind a lock, acted on
/// outside it.
final class FutureSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, @unchecked Sendable
where Downstream.Input: Sendable, Downstream.Failure == any Error {
    private enum State {
        /// Waiting for the future and/or for demand.
        case waiting(Downstream, demanded: Bool)
        /// The value came before the demand.
        case holding(Downstream, Downstream.Input)
        /// The value is being delivered; the completion follows unless the subscriber cancels.
        case delivering(Downstream)
        case done
    }

    private enum Action {
        case none
        case deliver(Downstream, Downstream.Input)
        case fail(Downstream, any Error)
    }

    private let state: NIOLockedValueBox<State>
    private let shutdownHandler = NIOLockedValueBox<(LoopLiveness, UInt64)?>(nil)

    init(_ downstream: Downstream) {
        state = NIOLockedValueBox(.waiting(downstream, demanded: false))
    }

    var description: String { "EventLoopFuture" }

    func attach(to future: EventLoopFuture<Downstream.Input>) {
        let liveness = LoopLiveness.of(future.eventLoop)
        guard let id = liveness.onShutdown(UncheckedAction { [weak self] in self?.complete(.failure(EventLoopError.shutdown)) }) else {
            complete(.failure(EventLoopError.shutdown))
            return
        }
        shutdownHandler.withLockedValue { $0 = (liveness, id) }
        // The callback holds this subscription until the future completes (it has no other way to
        // let go), not the subscriber: a cancel releases that at once.
        let handler = ResultHandler<Downstream.Input> { [self] in complete($0) }
        future.whenComplete { handler.run($0) }
    }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "Demand must be greater than zero: request(.none) is not allowed")
        perform(state.withLockedValue { state -> Action in
            switch state {
            case .waiting(let downstream, _):
                state = .waiting(downstream, demanded: true)
                return .none
            case .holding(let downstream, let value):
                state = .delivering(downstream)
                return .deliver(downstream, value)
            case .delivering, .done:
                return .none
            }
        })
    }

    func cancel() {
        state.withLockedValue { $0 = .done }
        forgetShutdownHandler()
    }

    private func complete(_ result: Result<Downstream.Input, any Error>) {
        perform(state.withLockedValue { state -> Action in
            guard case .waiting(let downstream, let demanded) = state else { return .none }
            switch result {
            case .failure(let error):
                state = .done
                return .fail(downstream, error)
            case .success(let value) where demanded:
                state = .delivering(downstream)
                return .deliver(downstream, value)
            case .success(let value):
                state = .holding(downstream, value)
                return .none
            }
        })
    }

    private func perform(_ action: Action) {
        switch action {
        case .none:
            return
        case .deliver(let downstream, let value):
            forgetShutdownHandler()
            _ = downstream.receive(value)
            let finish = state.withLockedValue { state -> Bool in
                guard case .delivering = state else { return false }   // cancelled meanwhile
                state = .done
                return true
            }
            if finish { downstream.receive(completion: .finished) }
        case .fail(let downstream, let error):
            forgetShutdownHandler()
            downstream.receive(completion: .failure(error))
        }
    }

    private func forgetShutdownHandler() {
        if let (liveness, id) = shutdownHandler.withLockedValue({ $0.take() }) {
            liveness.removeShutdownHandler(id)
        }
    }
}

/// A future's callback, carried into NIO's `@Sendable` callback: the subscription it calls guards
/// its own state. (Capturing the subscription itself would capture its subscriber's type, which
/// need not be sendable.)
struct ResultHandler<Value: Sendable>: @unchecked Sendable {
    let run: (Result<Value, any Error>) -> Void
    init(_ run: @escaping (Result<Value, any Error>) -> Void) { self.run = run }
}
#endif
