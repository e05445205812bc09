extension Publishers {
    /// A publisher that flattens nested publishers.
    ///
    /// Given a publisher that publishes publishers, `SwitchToLatest` produces a sequence of events
    /// from only the most recent one: when a new publisher arrives it cancels its subscription to
    /// the previous one (whose later values are never delivered) and subscribes to the new one.
    ///
    /// - Demand: the upstream is asked for `.unlimited` publishers. The downstream's outstanding
    ///   demand is requested from each new inner publisher, and later demand is forwarded to the
    ///   current one; never more values downstream than it demanded. As in Apple's Combine, an
    ///   inner publisher that sends a value beyond that demand stops the program.
    /// - Completion: finishes once the upstream and the current inner publisher have finished; the
    ///   first failure, upstream or inner, cancels everything else and is sent downstream.
    /// - Threading: values reach the downstream one at a time, whatever thread they come from.
    /// - As in Apple's Combine, the subscriber receives its subscription before the upstream is
    ///   subscribed; cancelling cancels the current inner publisher, then the upstream.
    public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
    where P == Upstream.Output, P.Failure == Upstream.Failure {
        /// The kind of values published by this publisher: the inner publishers'.
        public typealias Output = P.Output
        /// The kind of errors this publisher might publish: the upstream's (and inner publishers').
        public typealias Failure = P.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that “flattens” nested publishers.
        ///
        /// - Parameter upstream: The publisher from which this publisher receives elements.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through the operator's subscription (named "SwitchToLatest"),
        /// which it receives at once, before the upstream is subscribed (as in Apple's Combine).
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let outer = Outer(downstream: subscriber)
            subscriber.receive(subscription: outer)
            upstream.attachSubscriber(outer)
        }
    }
}

extension Publishers.SwitchToLatest {
    /// The upstream's subscriber and the downstream's subscription: holds
    /// ``SwitchToLatestState`` behind the lock and performs its decisions after releasing it.
    @usableFromInline
    final class Outer<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == P.Output, Downstream.Failure == P.Failure {
        @usableFromInline typealias Input = P
        @usableFromInline typealias Failure = Upstream.Failure
        @usableFromInline typealias State = SwitchToLatestState<P.Output, P.Failure>

        @usableFromInline let lock = Lock()
        // Touched only with `lock` held.
        @exclusivity(unchecked) @usableFromInline var state = State()
        /// Boxed, as `flatMap`'s: each delivery takes the downstream out of the lock, and copying a
        /// box is a retain, where copying a subscriber that is a struct copied every field.
        @exclusivity(unchecked) @usableFromInline var downstream: Boxed<Downstream>?
        /// Leads `request(_:)`, which arrives through `any Subscription` and so runs unspecialised, into
        /// the code specialised where `init` ran (as ``SubjectSubscription/requestEntry`` does): under
        /// one-at-a-time demand, every value would otherwise look up generic metadata.
        @usableFromInline let requestEntry: (Outer, Subscribers.Demand) -> Void
        /// Leads an inner's completion into the code specialised where `init` ran (as `flatMap`'s
        /// `completeInnerEntry` does): a subject completes its subscribers from code generic over
        /// them, which reaches ``completeInner(_:_:)`` unspecialised.
        @usableFromInline let completeInnerEntry: (Outer, Int, Subscribers.Completion<P.Failure>) -> Void

        @inlinable
        init(downstream: Downstream) {
            self.downstream = Boxed(downstream)
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
            subscription.request(.unlimited)
        }

        @inlinable
        func receive(_ input: P) -> Subscribers.Demand {
            guard let (id, previous) = lock.withLock({ state.switchInner() }) else { return .none }
            previous?.cancel()
            input.attachSubscriber(TaggedInnerSubscriber(owner: self, id: id))
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            perform(lock.withLock { effects(state.upstreamCompleted(completion)) })
        }

        // MARK: Inner side

        @inlinable
        func attachInner(_ id: Int, _ subscription: any Subscription) {
            switch lock.withLock({ state.attachInner(id, subscription) }) {
            case .request(let demand):
                if demand != .none { subscription.request(demand) }
            case .cancel:
                subscription.cancel()
            case .ignore:
                return
            }
        }

        @inlinable
        func receiveInner(_ value: P.Output, from id: Int) -> Subscribers.Demand {
            let target = lock.withLock { state.receiveInner(value, from: id) ? downstream : nil }
            guard let target else { return .none }
            let more = target.value.receive(value)
            let (forward, toSender, next) = afterDelivery(adding: more, from: id)
            if !toSender { forward?.request(more) }
            if case .idle = next {} else { drain(next, to: target) }
            return toSender ? more : .none
        }

        @inlinable
        func completeInner(_ id: Int, _ completion: Subscribers.Completion<P.Failure>) {
            completeInnerEntry(self, id, completion)
        }

        /// `completeInner(_:_:)`, specialised (see ``completeInnerEntry``).
        @inlinable
        func completeInnerSpecialised(_ id: Int, _ completion: Subscribers.Completion<P.Failure>) {
            perform(lock.withLock { effects(state.innerCompleted(id, completion)) })
        }

        // MARK: Delivery

        /// Records a delivery under the lock; releases the downstream if that ended the stream.
        @inlinable
        func afterDelivery(adding more: Subscribers.Demand, from id: Int)
            -> (forward: (any Subscription)?, toSender: Bool, next: State.Next)
        {
            lock.withLock {
                let result = state.delivered(adding: more, from: id)
                if state.isTerminal { downstream = nil }
                return result
            }
        }

        /// Delivers waiting values (and a completion) while holding the delivering role.
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
                case .deliver(let value, let id):
                    let more = target.value.receive(value)
                    let (forward, _, following) = afterDelivery(adding: more, from: id)
                    forward?.request(more)
                    next = following
                }
            }
        }

        /// Takes the downstream along with a completion to send, under the lock.
        @inlinable
        func effects(_ effects: State.Effects) -> (State.Effects, Boxed<Downstream>?) {
            guard effects.completion != nil else { return (effects, nil) }
            defer { downstream = nil }
            return (effects, downstream)
        }

        /// Carries out effects decided under the lock.
        @inlinable
        func perform(_ work: (effects: State.Effects, target: Boxed<Downstream>?)) {
            for subscription in work.effects.cancel {
                subscription.cancel()
            }
            if let completion = work.effects.completion {
                work.target?.value.receive(completion: completion)
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
            let (forward, start, target) = lock.withLock {
                () -> ((any Subscription)?, (value: P.Output, inner: Int)?, Boxed<Downstream>?) in
                let (forward, start) = state.request(demand)
                return (forward, start, start == nil ? nil : downstream)
            }
            forward?.request(demand)
            if let start, let target {
                drain(.deliver(start.value, inner: start.inner), to: target)
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

        @usableFromInline var description: String { "SwitchToLatest" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["downstream": lock.withLock { downstream }?.value as Any])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Republishes elements sent by the most recently received publisher.
    ///
    /// This operator works with an upstream publisher of publishers, flattening the stream of
    /// elements to appear as if they were coming from a single stream of elements. When it receives
    /// a new publisher from the upstream, it cancels its subscription to the previous one — use
    /// this to stop earlier publishers from doing unnecessary work, such as network requests made
    /// for frequently updating user interface values. Outstanding downstream demand carries over to
    /// the new publisher.
    ///
    /// - Returns: A publisher that republishes the elements of the most recent inner publisher.
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Failure == Never, Output: Publisher {
    /// Republishes elements sent by the most recently received publisher, for an upstream that
    /// cannot fail publishing publishers that can.
    ///
    /// As ``Publisher/switchToLatest()-7dkoi``; the upstream is given the inner publishers'
    /// failure type.
    ///
    /// - Returns: A publisher that republishes the elements of the most recent inner publisher.
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>> {
        Publishers.SwitchToLatest(upstream: Publishers.SetFailureType(upstream: self))
    }
}

extension Publisher where Failure == Never, Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher, when neither the
    /// upstream nor the inner publishers can fail.
    ///
    /// As ``Publisher/switchToLatest()-7dkoi``; the result cannot fail.
    ///
    /// - Returns: A publisher that republishes the elements of the most recent inner publisher.
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher, for inner publishers
    /// that cannot fail inside an upstream that can.
    ///
    /// As ``Publisher/switchToLatest()-7dkoi``; each inner publisher is given the upstream's
    /// failure type.
    ///
    /// - Returns: A publisher that republishes the elements of the most recent inner publisher.
    @inlinable
    public func switchToLatest()
        -> Publishers.SwitchToLatest<Publishers.SetFailureType<Output, Failure>,
                                     Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>>
    {
        Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: self) { Publishers.SetFailureType(upstream: $0) })
    }
}

extension Publishers.SwitchToLatest.Outer: InnerPublisherOwner {
    @usableFromInline typealias InnerInput = P.Output
    @usableFromInline typealias InnerFailure = P.Failure
    @usableFromInline typealias InnerID = Int
    @usableFromInline var innerName: String { "SwitchToLatest" }
}
