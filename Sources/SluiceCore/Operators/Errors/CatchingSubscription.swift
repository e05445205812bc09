/// The engine behind `catch` and `tryCatch`: subscribes downstream once, forwards values from the
/// upstream, and on an upstream failure asks the handler for a new publisher and continues with
/// it, carrying over the demand the downstream requested but has not received yet.
///
/// Lock discipline: state changes under `lock`; the downstream, the upstreams and the handler are
/// only called after it is released.
@usableFromInline
final class CatchingSubscription<UpstreamFailure: Error, NewPublisher: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
where Downstream.Input == NewPublisher.Output {
    @usableFromInline typealias Input = NewPublisher.Output
    @usableFromInline typealias Failure = UpstreamFailure

    @usableFromInline let lock = Lock()
    /// Guarded by `lock` (which makes its exclusivity explicit: no runtime checks).
    @exclusivity(unchecked) @usableFromInline var state: SwitchingUpstream<Downstream>
    /// Guarded by `lock`: the handler's publisher has replaced the first upstream.
    @exclusivity(unchecked) @usableFromInline var switched = false
    @usableFromInline let handler: (UpstreamFailure) -> Result<NewPublisher, Downstream.Failure>
    @usableFromInline let mapNewFailure: (NewPublisher.Failure) -> Downstream.Failure
    @usableFromInline let name: String

    @inlinable
    init(
        downstream: Downstream,
        name: String,
        handler: @escaping (UpstreamFailure) -> Result<NewPublisher, Downstream.Failure>,
        mapNewFailure: @escaping (NewPublisher.Failure) -> Downstream.Failure
    ) {
        state = SwitchingUpstream(downstream: downstream)
        self.name = name
        self.handler = handler
        self.mapNewFailure = mapNewFailure
    }

    @usableFromInline var description: String { name }
    /// "downstream" and "demand" (the demand not yet met), as Apple's.
    @usableFromInline var customMirror: Mirror {
        let (downstream, demand) = lock.withLock { (state.downstream, state.outstanding) }
        return Mirror(self, children: ["downstream": downstream as Any, "demand": demand])
    }
    @usableFromInline var playgroundDescription: Any { name }

    // MARK: Subscription (downstream side)

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.withLock { state.request(demand) }?.request(demand)
    }

    @inlinable
    func cancel() {
        lock.withLock { state.cancel() }?.cancel()
    }

    // MARK: Subscriber (both upstreams)

    @inlinable
    func receive(subscription: any Subscription) {
        lock.withLock { state.attach(subscription) }.perform(on: subscription, owner: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let target = lock.withLock({ state.willDeliver("catch") }) else { return .none }
        let more = target.receive(input)
        guard more != .none else { return .none }
        return lock.withLock { state.delivered(adding: more) }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let isFirstUpstream: Bool? = lock.withLock {
            // Before the subscription: ignored, as Apple's Combine does.
            guard !state.terminated, state.subscribedDownstream else { return nil }
            // Apple's Combine traps on a second completion of the failed upstream (its own or
            // one sent from inside the handler).
            precondition(!switched, "\(name): the upstream completed after failing")
            return !switched
        }
        guard isFirstUpstream == true else { return }
        switch completion {
        case .finished:
            finish(.finished)
        case .failure(let error):
            lock.withLock {
                switched = true
                state.detachCurrent()
            }
            switch handler(error) {
            case .success(let publisher):
                publisher.attachSubscriber(NewSide(owner: self))
            case .failure(let error):
                finish(.failure(error))
            }
        }
    }

    @inlinable
    func receiveFromNew(completion: Subscribers.Completion<NewPublisher.Failure>) {
        switch completion {
        case .finished: finish(.finished)
        case .failure(let error): finish(.failure(mapNewFailure(error)))
        }
    }

    @inlinable
    func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        lock.withLock { state.terminate() }?.receive(completion: completion)
    }

    /// The subscriber put on the new publisher: forwards everything to the owner.
    @usableFromInline
    struct NewSide: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
        @usableFromInline typealias Input = NewPublisher.Output
        @usableFromInline typealias Failure = NewPublisher.Failure
        @usableFromInline let owner: CatchingSubscription
        @usableFromInline let combineIdentifier = CombineIdentifier()
        @inlinable init(owner: CatchingSubscription) { self.owner = owner }
        @usableFromInline var description: String { owner.name }
        @usableFromInline var customMirror: Mirror { owner.customMirror }
        @usableFromInline var playgroundDescription: Any { owner.name }
        @inlinable func receive(subscription: any Subscription) { owner.receive(subscription: subscription) }
        @inlinable func receive(_ input: Input) -> Subscribers.Demand { owner.receive(input) }
        @inlinable func receive(completion: Subscribers.Completion<Failure>) { owner.receiveFromNew(completion: completion) }
    }
}
