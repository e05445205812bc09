/// The engine behind `catch` and `tryCatch`: subscribes downstream once, forwards values from the
/// upstream, and on an upstream failure asks the handler for a new publisher and continues with
/// it, carrying over the demand the downstream requested but has not received yet.
///
/// Lock discipline: state changes under `lock`; the downstream, the upstreams and the handler are
/// only called after it is released.
@usableFromInline
final class CatchingSubscription<UpstreamFailure: Error, NewPublisher: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, CustomStringConvertible, @unchecked Sendable
where Downstream.Input == NewPublisher.Output {
    @usableFromInline typealias Input = NewPublisher.Output
    @usableFromInline typealias Failure = UpstreamFailure

    private let lock = Lock()
    private var downstream: Downstream?
    private var current: (any Subscription)?
    /// Requested by the downstream and not yet delivered.
    private var outstanding = Subscribers.Demand.none
    private var subscribedDownstream = false
    private var switched = false
    private var terminated = false
    private let handler: (UpstreamFailure) -> Result<NewPublisher, Downstream.Failure>
    private let mapNewFailure: (NewPublisher.Failure) -> Downstream.Failure
    private let name: String

    @usableFromInline
    init(
        downstream: Downstream,
        name: String,
        handler: @escaping (UpstreamFailure) -> Result<NewPublisher, Downstream.Failure>,
        mapNewFailure: @escaping (NewPublisher.Failure) -> Downstream.Failure
    ) {
        self.downstream = downstream
        self.name = name
        self.handler = handler
        self.mapNewFailure = mapNewFailure
    }

    @usableFromInline var description: String { name }

    // MARK: Subscription (downstream side)

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let subscription: (any Subscription)? = lock.withLock {
            guard !terminated else { return nil }
            outstanding += demand
            return current
        }
        subscription?.request(demand)
    }

    @usableFromInline
    func cancel() {
        let subscription: (any Subscription)? = lock.withLock {
            guard !terminated else { return nil }
            terminated = true
            downstream = nil
            defer { current = nil }
            return current
        }
        subscription?.cancel()
    }

    // MARK: Subscriber (both upstreams)

    @usableFromInline
    func receive(subscription: any Subscription) {
        let step: Step = lock.withLock {
            guard !terminated, current == nil else { return .cancel }
            current = subscription
            if !subscribedDownstream, let downstream {
                subscribedDownstream = true
                return .subscribeDownstream(downstream)
            }
            return outstanding == .none ? .nothing : .request(outstanding)
        }
        switch step {
        case .cancel: subscription.cancel()
        case .subscribeDownstream(let downstream): downstream.receive(subscription: self)
        case .request(let demand): subscription.request(demand)
        case .nothing: break
        }
    }

    @usableFromInline
    func receive(_ input: Input) -> Subscribers.Demand {
        let target: Downstream? = lock.withLock {
            guard !terminated, let downstream else { return nil }
            if outstanding != .unlimited, outstanding > .none { outstanding -= 1 }
            return downstream
        }
        guard let target else { return .none }
        let more = target.receive(input)
        guard more != .none else { return .none }
        return lock.withLock {
            guard !terminated else { return .none }
            outstanding += more
            return more
        }
    }

    @usableFromInline
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let isFirstUpstream: Bool? = lock.withLock {
            guard !terminated else { return nil }
            return !switched
        }
        guard isFirstUpstream == true else { return }
        switch completion {
        case .finished:
            finish(.finished)
        case .failure(let error):
            lock.withLock {
                switched = true
                current = nil
            }
            switch handler(error) {
            case .success(let publisher):
                publisher.receive(subscriber: NewSide(owner: self))
            case .failure(let error):
                finish(.failure(error))
            }
        }
    }

    fileprivate func receiveFromNew(completion: Subscribers.Completion<NewPublisher.Failure>) {
        switch completion {
        case .finished: finish(.finished)
        case .failure(let error): finish(.failure(mapNewFailure(error)))
        }
    }

    private func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        let target: Downstream? = lock.withLock {
            guard !terminated else { return nil }
            terminated = true
            current = nil
            defer { downstream = nil }
            return downstream
        }
        target?.receive(completion: completion)
    }

    private enum Step { case cancel, subscribeDownstream(Downstream), request(Subscribers.Demand), nothing }

    /// The subscriber put on the new publisher: forwards everything to the owner.
    private struct NewSide: Subscriber, CustomStringConvertible {
        typealias Input = NewPublisher.Output
        typealias Failure = NewPublisher.Failure
        let owner: CatchingSubscription
        let combineIdentifier = CombineIdentifier()
        var description: String { owner.name }
        func receive(subscription: any Subscription) { owner.receive(subscription: subscription) }
        func receive(_ input: Input) -> Subscribers.Demand { owner.receive(input) }
        func receive(completion: Subscribers.Completion<Failure>) { owner.receiveFromNew(completion: completion) }
    }
}
