extension Publishers {
    /// A publisher that transforms elements from an upstream publisher into a new publisher.
    ///
    /// `FlatMap` asks the upstream for ``maxPublishers`` elements, turns each into a publisher with
    /// ``transform`` and subscribes to it, asking the upstream for one more element only as one of
    /// those publishers finishes: at most `maxPublishers` of them are subscribed at once. Their
    /// values are merged into one stream, in the order they arrive.
    ///
    /// - Demand: never more values downstream than it demanded. While the downstream's demand is
    ///   `.unlimited`, inner publishers are asked for `.unlimited`; otherwise each is asked for one
    ///   value at a time, and asked again once that value has been delivered (a value that finds no
    ///   demand waits for it).
    /// - Completion: finishes once the upstream and every inner publisher have finished; the first
    ///   failure, upstream or inner, cancels everything else and is sent downstream — except that,
    ///   as in Apple's Combine, an inner publisher's failure leaves the upstream running (an
    ///   exception to contract rule 6).
    /// - Threading: inner publishers may send from any thread; their values reach the downstream
    ///   one at a time, never concurrently, none lost.
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
    where NewPublisher.Failure == Upstream.Failure {
        /// The kind of values published by this publisher: the new publishers'.
        public typealias Output = NewPublisher.Output
        /// The kind of errors this publisher might publish: the upstream's (and new publishers').
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of concurrent publisher subscriptions.
        public let maxPublishers: Subscribers.Demand

        /// A closure that takes an element as a parameter and returns a publisher that produces
        /// elements of that type.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates a publisher that transforms elements from an upstream publisher into a new
        /// publisher.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - maxPublishers: The maximum number of concurrent publisher subscriptions.
        ///   - transform: A closure that takes an element as a parameter and returns a publisher
        ///     that produces elements of that type.
        @inlinable
        public init(upstream: Upstream, maxPublishers: Subscribers.Demand,
                    transform: @escaping (Upstream.Output) -> NewPublisher) {
            self.upstream = upstream
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        /// Attaches the subscriber through the operator's subscription (named "FlatMap"), which
        /// it receives at once, before the upstream is subscribed (as in Apple's Combine).
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let outer = Outer(downstream: subscriber, maxPublishers: maxPublishers, transform: transform)
            subscriber.receive(subscription: outer)
            upstream.attachSubscriber(outer)
        }
    }
}

extension Publishers.FlatMap {
    /// The upstream's subscriber and the downstream's subscription: holds ``FlatMapState`` behind
    /// the lock and performs its decisions after releasing it.
    @usableFromInline
    final class Outer<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == NewPublisher.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure
        @usableFromInline typealias State = FlatMapState<NewPublisher.Output, Upstream.Failure>

        @usableFromInline let lock = Lock()
        // Touched only with `lock` held.
        @exclusivity(unchecked) @usableFromInline var state: State
        /// Boxed: each delivery takes the downstream out of the lock, and copying a box is a
        /// retain, where copying a subscriber that is a struct (a `map` after `flatMap`) copied
        /// every field.
        @exclusivity(unchecked) @usableFromInline var downstream: Boxed<Downstream>?
        @usableFromInline let maxPublishers: Subscribers.Demand
        /// Called by the upstream's serialised `receive(_:)`, never under the lock.
        @usableFromInline let transform: (Upstream.Output) -> NewPublisher
        /// Leads `request(_:)`, which arrives through `any Subscription` and so runs unspecialised, into
        /// the code specialised where `init` ran (as ``SubjectSubscription/requestEntry`` does): under
        /// one-at-a-time demand, every value would otherwise look up generic metadata.
        @usableFromInline let requestEntry: (Outer, Subscribers.Demand) -> Void
        /// Leads an inner's completion into the code specialised where `init` ran. A publisher
        /// that completes its subscribers from code generic over them (a subject's `send(completion:)`)
        /// reaches ``TaggedInnerSubscriber`` and ``completeInner(_:_:)`` unspecialised, where every
        /// generic type the completion touches (the state's action, the boxed downstream, tuples of
        /// them) is looked up at run time: that cost an inner finishing a subject ~6,000 instructions.
        @usableFromInline let completeInnerEntry: (Outer, FlatMapInnerID, Subscribers.Completion<Upstream.Failure>) -> Void

        @inlinable
        init(downstream: Downstream, maxPublishers: Subscribers.Demand,
             transform: @escaping (Upstream.Output) -> NewPublisher) {
            self.downstream = Boxed(downstream)
            self.maxPublishers = maxPublishers
            self.transform = transform
            state = State(maxPublishers: maxPublishers)
            requestEntry = { $0.requestSpecialised($1) }
            completeInnerEntry = { $0.completeInnerSpecialised($1, $2) }
        }

        // MARK: Upstream side

        @inlinable
        func receive(subscription: any Subscription) {
            guard lock.withLock({ downstream != nil && state.attachUpstream(subscription) }) else {
                subscription.cancel()
                return
            }
            subscription.request(maxPublishers)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let id = lock.withLock({ state.addInner() }) else { return .none }
            transform(input).attachSubscriber(TaggedInnerSubscriber(owner: self, id: id))
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let (action, target) = lock.withLock { () -> (State.Action, Boxed<Downstream>?) in
                let action = state.upstreamCompleted(completion)
                return (action, takeDownstream(for: action))
            }
            guard case .failure = completion else {
                perform(action, target)
                return
            }
            // The inners are cancelled first; another upstream completion meanwhile traps.
            let cancelled = action.cancelled
            for subscription in cancelled {
                subscription.cancel()
            }
            if !cancelled.isEmpty {
                lock.withLock { state.upstreamFailureCancelled() }
            }
            if case .complete(let completion, _) = action {
                target?.value.receive(completion: completion)
            }
        }

        // MARK: Inner side

        @inlinable
        func attachInner(_ id: FlatMapInnerID, _ subscription: any Subscription) {
            if let demand = lock.withLock({ state.attachInner(id, subscription) }) {
                subscription.request(demand)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receiveInner(_ value: NewPublisher.Output, from id: FlatMapInnerID) -> Subscribers.Demand {
            let (arrival, target) = lock.withLock { () -> (State.Arrival, Boxed<Downstream>?) in
                let arrival = state.receiveInner(value, from: id)
                return (arrival, arrival == .deliver ? downstream : nil)
            }
            guard let target else { return arrival == .waitReplenished ? .max(1) : .none }
            let more = target.value.receive(value)
            let (replenish, raise, next) = lock.withLock {
                () -> (Bool, ContiguousArray<any Subscription>?, State.Next) in
                let result = state.delivered(adding: more, from: id)
                if state.isTerminal { downstream = nil }
                return result
            }
            if let raise { self.raise(raise) }
            if case .idle = next {} else { drain(next, to: target) }
            return replenish ? .max(1) : .none
        }

        @inlinable
        func completeInner(_ id: FlatMapInnerID, _ completion: Subscribers.Completion<Upstream.Failure>) {
            completeInnerEntry(self, id, completion)
        }

        /// `completeInner(_:_:)`, specialised (see ``completeInnerEntry``).
        @inlinable
        func completeInnerSpecialised(_ id: FlatMapInnerID, _ completion: Subscribers.Completion<Upstream.Failure>) {
            let (action, released, target) = lock.withLock {
                () -> (State.Action, any Subscription, Boxed<Downstream>?) in
                let (action, released) = state.innerCompleted(id, completion)
                return (action, released, takeDownstream(for: action))
            }
            _ = released  // dropped here, outside the lock
            if case .none = action { return }
            perform(action, target)
        }

        // MARK: Delivery

        /// Delivers waiting values (and a completion) while holding the delivering role, asking
        /// each value's inner for one more when the demand is limited.
        @inlinable
        func drain(_ first: State.Next, to target: Boxed<Downstream>) {
            var next = first
            while true {
                switch consume next {
                case .idle:
                    return
                case .complete(let completion):
                    target.value.receive(completion: completion)
                    return
                case .deliver(let value, let id, let replenished):
                    let more = target.value.receive(value)
                    let (replenish, raise, following) = lock.withLock {
                        () -> ((any Subscription)?, ContiguousArray<any Subscription>?, State.Next) in
                        let (replenish, raise, following) = state.delivered(adding: more, from: id,
                                                                            replenished: replenished)
                        if state.isTerminal { downstream = nil }
                        return (replenish ? state.subscription(of: id) : nil, raise, following)
                    }
                    if let raise { self.raise(raise) }
                    replenish?.request(.max(1))
                    next = following
                }
            }
        }

        /// Raises inner subscriptions to `.unlimited`.
        @inlinable
        func raise(_ subscriptions: ContiguousArray<any Subscription>) {
            for subscription in subscriptions {
                subscription.request(.unlimited)
            }
        }

        /// With the lock held: takes the downstream when `action` sends it the completion.
        @inlinable
        func takeDownstream(for action: State.Action) -> Boxed<Downstream>? {
            guard case .complete = action else { return nil }
            defer { downstream = nil }
            return downstream
        }

        /// Carries out an action decided under the lock.
        @inlinable
        func perform(_ action: State.Action, _ target: Boxed<Downstream>?) {
            switch action {
            case .none:
                return
            case .requestUpstream:
                lock.withLock { state.upstreamToReplenish() }.request(.max(1))
            case .complete(let completion, let cancelling):
                for subscription in cancelling {
                    subscription.cancel()
                }
                target?.value.receive(completion: completion)
            case .cancel(let subscriptions):
                for subscription in subscriptions {
                    subscription.cancel()
                }
            }
        }

        // MARK: Downstream side

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            requestEntry(self, demand)
        }

        /// `request(_:)`, specialised (see ``requestEntry``).
        @inlinable
        func requestSpecialised(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let (raise, start, target) = lock.withLock {
                () -> (ContiguousArray<any Subscription>,
                       (value: NewPublisher.Output, inner: FlatMapInnerID, replenished: Bool)?, Boxed<Downstream>?) in
                let (raise, start) = state.request(demand)
                return (raise, start, start == nil ? nil : downstream)
            }
            self.raise(raise)
            if let start, let target {
                drain(.deliver(start.value, inner: start.inner, replenished: start.replenished), to: target)
            }
        }

        @inlinable
        func cancel() {
            let (subscriptions, released) = lock.withLock {
                () -> (ContiguousArray<any Subscription>, Boxed<Downstream>?) in
                defer { downstream = nil }
                return (state.cancel(), downstream)
            }
            for subscription in subscriptions {
                subscription.cancel()
            }
            _ = released  // released here, outside the lock
        }

        @usableFromInline var description: String { "FlatMap" }
        /// No children, as Apple's.
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Transforms all elements from an upstream publisher into a new publisher up to a maximum
    /// number of publishers you specify.
    ///
    /// The new publishers' values are merged into one stream. At most `maxPublishers` of them are
    /// subscribed at once: the upstream is asked for `maxPublishers` elements, and for one more
    /// each time a new publisher finishes. The result finishes once the upstream and all new
    /// publishers have finished; any failure cancels the rest and ends the stream.
    ///
    /// - Parameters:
    ///   - maxPublishers: Specifies the maximum number of concurrent publisher subscriptions, or
    ///     `.unlimited` if unspecified.
    ///   - transform: A closure that takes an element as a parameter and returns a publisher that
    ///     produces elements of that type.
    /// - Returns: A publisher that transforms elements from an upstream publisher into a publisher
    ///   of that element's type.
    @inlinable
    public func flatMap<T, P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited,
                                         _ transform: @escaping (Output) -> P) -> Publishers.FlatMap<P, Self>
    where T == P.Output, Failure == P.Failure {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }

    /// Transforms all elements from an upstream publisher into a new publisher that cannot fail,
    /// up to a maximum number of publishers you specify.
    ///
    /// The new publishers are given the upstream's failure type; otherwise as
    /// ``Publisher/flatMap(maxPublishers:_:)-6beje``.
    ///
    /// - Parameters:
    ///   - maxPublishers: Specifies the maximum number of concurrent publisher subscriptions, or
    ///     `.unlimited` if unspecified.
    ///   - transform: A closure that takes an element as a parameter and returns a publisher that
    ///     produces elements of that type.
    /// - Returns: A publisher that transforms elements from an upstream publisher into a publisher
    ///   of that element's type.
    @inlinable
    public func flatMap<P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited,
                                      _ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self>
    where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) {
            Publishers.SetFailureType(upstream: transform($0))
        }
    }
}

extension Publisher where Failure == Never {
    /// Transforms all elements from an upstream publisher that cannot fail into new publishers
    /// that may, up to a maximum number of publishers you specify.
    ///
    /// The upstream is given the new publishers' failure type; otherwise as
    /// ``Publisher/flatMap(maxPublishers:_:)-6beje``.
    ///
    /// - Parameters:
    ///   - maxPublishers: Specifies the maximum number of concurrent publisher subscriptions, or
    ///     `.unlimited` if unspecified.
    ///   - transform: A closure that takes an element as a parameter and returns a publisher that
    ///     produces elements of that type.
    /// - Returns: A publisher that transforms elements from an upstream publisher into a publisher
    ///   of that element's type.
    @inlinable
    public func flatMap<P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited,
                                      _ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>>
    {
        Publishers.FlatMap(upstream: Publishers.SetFailureType(upstream: self), maxPublishers: maxPublishers,
                           transform: transform)
    }

    /// Transforms all elements from an upstream publisher into new publishers, none of which can
    /// fail, up to a maximum number of publishers you specify.
    ///
    /// As ``Publisher/flatMap(maxPublishers:_:)-6beje``; the result cannot fail either.
    ///
    /// - Parameters:
    ///   - maxPublishers: Specifies the maximum number of concurrent publisher subscriptions, or
    ///     `.unlimited` if unspecified.
    ///   - transform: A closure that takes an element as a parameter and returns a publisher that
    ///     produces elements of that type.
    /// - Returns: A publisher that transforms elements from an upstream publisher into a publisher
    ///   of that element's type.
    @inlinable
    public func flatMap<P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited,
                                      _ transform: @escaping (Output) -> P) -> Publishers.FlatMap<P, Self>
    where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publishers.FlatMap.Outer: InnerPublisherOwner {
    @usableFromInline typealias InnerInput = NewPublisher.Output
    @usableFromInline typealias InnerFailure = Upstream.Failure
    @usableFromInline typealias InnerID = FlatMapInnerID
    @usableFromInline var innerName: String { "FlatMap" }
}
