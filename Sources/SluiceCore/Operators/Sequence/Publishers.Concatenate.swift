extension Publishers {
    /// A publisher that emits all of one publisher's elements before those from another
    /// publisher.
    ///
    /// `Concatenate` subscribes to ``prefix`` first, and to ``suffix`` only once the prefix
    /// finishes; elements the suffix would have published before then are never seen (subscribe
    /// late to a subject, e.g. a `PassthroughSubject`, and you miss what it sent earlier). A
    /// prefix failure ends the stream without subscribing to the suffix.
    ///
    /// Demand: requests go to whichever publisher is active; demand the prefix didn't use carries
    /// over to the suffix when it is subscribed. `cancel()` cancels whichever is active. The
    /// subscription is named "Concatenate".
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
    where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output {
        /// The kind of values published by this publisher: the prefix's (and the suffix's).
        public typealias Output = Suffix.Output

        /// The kind of errors this publisher might publish: the prefix's (and the suffix's).
        public typealias Failure = Suffix.Failure

        /// The publisher to republish, in its entirety, before republishing elements from
        /// `suffix`.
        public let prefix: Prefix

        /// The publisher to republish only after `prefix` finishes.
        public let suffix: Suffix

        /// Creates a publisher that emits all of one publisher's elements before those from
        /// another publisher.
        ///
        /// - Parameters:
        ///   - prefix: The publisher to republish, in its entirety, before republishing elements
        ///     from `suffix`.
        ///   - suffix: The publisher to republish only after `prefix` finishes.
        @inlinable
        public init(prefix: Prefix, suffix: Suffix) {
            self.prefix = prefix
            self.suffix = suffix
        }

        /// Attaches the subscriber to the prefix through the operator's own subscription; the
        /// suffix is subscribed when the prefix finishes.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Inner(downstream: subscriber, suffix: suffix)
            prefix.attachSubscriber(Inner<S>.PrefixSide(inner: inner))
        }
    }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

/// The state of one `Concatenate` subscription: prefix active → suffix active → done. A value
/// type whose transitions return what to do; ``Publishers/Concatenate`` keeps it behind its lock
/// and acts once the lock is released.
@usableFromInline
package struct ConcatenateState<Downstream> {
    /// Which side is active. A plain enum, with the active side's subscription kept beside it in
    /// ``active``: matching an enum whose cases carry an `any Subscription` copies it through its
    /// witnesses, and the per-value paths ask which side is active.
    @usableFromInline
    package enum Phase {
        /// Waiting for the prefix's subscription.
        case awaitingPrefix
        /// The prefix is active.
        case prefix
        /// The prefix finished; the suffix's subscription hasn't arrived yet.
        case awaitingSuffix
        /// The suffix is active.
        case suffix
        /// Completed or cancelled.
        case done
    }

    /// What to do when a subscription arrives.
    @usableFromInline
    package enum SubscriptionAction {
        /// Hand the operator's subscription to the downstream (the prefix's subscription arrived).
        case sendSubscription(Downstream)
        /// Ask the newly attached suffix for the demand carried over from the prefix.
        case request(any Subscription, Subscribers.Demand)
        /// Nothing to do (a suffix attached with no demand outstanding).
        case none
        /// Unwanted (a second subscription, or already done): cancel it.
        case cancel(any Subscription)
    }

    @usableFromInline package var phase = Phase.awaitingPrefix
    /// The active side's subscription (``Phase/prefix`` or ``Phase/suffix``); `nil` otherwise.
    @usableFromInline package var active: (any Subscription)?
    /// Released once done.
    @usableFromInline package var downstream: Downstream?
    /// Downstream demand the prefix hasn't met yet: it carries over to the suffix.
    @usableFromInline package var demand = Subscribers.Demand.none

    @inlinable
    package init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The prefix's subscription arrived.
    @inlinable
    package mutating func prefixSubscribed(_ subscription: any Subscription) -> SubscriptionAction {
        guard phase == .awaitingPrefix, let downstream else { return .cancel(subscription) }
        phase = .prefix
        active = subscription
        return .sendSubscription(downstream)
    }

    /// The suffix's subscription arrived: carries the unused demand over.
    @inlinable
    package mutating func suffixSubscribed(_ subscription: any Subscription) -> SubscriptionAction {
        guard phase == .awaitingSuffix, downstream != nil else { return .cancel(subscription) }
        phase = .suffix
        active = subscription
        return demand == .none ? .none : .request(subscription, demand)
    }

    /// The downstream requested: returns the subscription to forward the request to, if one is
    /// active (between the two, the demand waits for the suffix).
    @inlinable
    package mutating func request(_ more: Subscribers.Demand) -> (any Subscription)? {
        switch phase {
        case .prefix:
            demand += more
            return active
        case .awaitingPrefix, .awaitingSuffix:
            if downstream != nil { demand += more }
            return nil
        case .suffix:
            return active
        case .done:
            return nil
        }
    }

    /// A prefix value arrived: returns whom to deliver it to, having used one unit of demand.
    @inlinable
    package mutating func prefixValue() -> Downstream? {
        // Beyond the demand, a prefix value is dropped, as Apple's Combine does.
        guard phase == .prefix, let downstream, demand > 0 else { return nil }
        demand -= 1
        return downstream
    }

    /// The downstream returned `more` from a prefix value.
    @inlinable
    package mutating func prefixValueDelivered(more: Subscribers.Demand) {
        if phase == .prefix { demand += more }
    }

    /// A suffix value arrived: returns whom to deliver it to.
    @inlinable
    package func suffixValue() -> Downstream? {
        guard phase == .suffix else { return nil }
        return downstream
    }

    /// The prefix finished: returns `true` if the suffix must now be subscribed.
    @inlinable
    package mutating func prefixFinished() -> Bool {
        guard phase == .prefix, downstream != nil else { return false }
        phase = .awaitingSuffix
        active = nil
        return true
    }

    /// The active side completed for good (a prefix failure, or the suffix's completion):
    /// returns whom to complete, once.
    @inlinable
    package mutating func complete(fromSuffix: Bool) -> Downstream? {
        switch (phase, fromSuffix) {
        case (.prefix, false), (.suffix, true):
            phase = .done
            active = nil
            defer { downstream = nil }
            return downstream
        default:
            return nil
        }
    }

    /// The downstream cancelled: returns the active subscription to cancel and the downstream to
    /// release, both outside the lock.
    @inlinable
    package mutating func cancel() -> (subscription: (any Subscription)?, released: Downstream?) {
        phase = .done
        defer { downstream = nil }
        return (active.take(), downstream)
    }
}

extension Publishers.Concatenate {
    /// The downstream's subscription of `Concatenate`: the ``ConcatenateState`` behind a lock, and
    /// the two subscribers it puts on the prefix and the suffix.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Suffix.Output, Downstream.Failure == Suffix.Failure {
        @usableFromInline let lock = Lock()
        /// Guarded by `lock`; released on cancel (and once subscribed).
        @exclusivity(unchecked) @usableFromInline var suffix: Suffix?
        /// Guarded by `lock`.
        @exclusivity(unchecked) @usableFromInline var state: ConcatenateState<Downstream>

        @inlinable
        init(downstream: Downstream, suffix: Suffix) {
            self.suffix = suffix
            state = ConcatenateState(downstream: downstream)
        }

        // MARK: Prefix side

        @inlinable
        func prefixReceive(subscription: any Subscription) {
            perform(lock.withLock { state.prefixSubscribed(subscription) })
        }

        @inlinable
        func prefixReceive(_ input: Suffix.Output) -> Subscribers.Demand {
            guard let target = lock.withLock({ state.prefixValue() }) else { return .none }
            let more = target.receive(input)
            if more != .none {
                lock.withLock { state.prefixValueDelivered(more: more) }
            }
            return more
        }

        @inlinable
        func prefixReceive(completion: Subscribers.Completion<Suffix.Failure>) {
            switch completion {
            case .finished:
                let next = lock.withLock { () -> Suffix? in
                    guard state.prefixFinished() else { return nil }
                    defer { suffix = nil }
                    return suffix
                }
                next?.attachSubscriber(SuffixSide(inner: self))
            case .failure:
                lock.withLock { state.complete(fromSuffix: false) }?.receive(completion: completion)
            }
        }

        // MARK: Suffix side

        @inlinable
        func suffixReceive(subscription: any Subscription) {
            perform(lock.withLock { state.suffixSubscribed(subscription) })
        }

        @inlinable
        func suffixReceive(_ input: Suffix.Output) -> Subscribers.Demand {
            guard let target = lock.withLock({ state.suffixValue() }) else { return .none }
            return target.receive(input)
        }

        @inlinable
        func suffixReceive(completion: Subscribers.Completion<Suffix.Failure>) {
            lock.withLock { state.complete(fromSuffix: true) }?.receive(completion: completion)
        }

        /// Acts on a subscription's arrival, outside the lock.
        @inlinable
        func perform(_ action: ConcatenateState<Downstream>.SubscriptionAction) {
            switch action {
            case .sendSubscription(let downstream):
                downstream.receive(subscription: self)
            case .request(let subscription, let demand):
                subscription.request(demand)
            case .none:
                break
            case .cancel(let subscription):
                subscription.cancel()
            }
        }

        // MARK: Downstream side

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            // No check for `.none`: Apple's Combine passes it on to the active publisher.
            lock.withLock { state.request(demand) }?.request(demand)
        }

        @inlinable
        func cancel() {
            let (subscription, released, suffix) = lock.withLock { () -> ((any Subscription)?, Downstream?, Suffix?) in
                let (subscription, released) = state.cancel()
                defer { self.suffix = nil }
                return (subscription, released, self.suffix)
            }
            subscription?.cancel()
            _ = (released, suffix)  // released here, outside the lock
        }

        @usableFromInline var description: String { "Concatenate" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publishers.Concatenate.Inner {
    /// The subscriber `Concatenate` puts on its prefix.
    @usableFromInline
    struct PrefixSide: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
        @usableFromInline typealias Input = Prefix.Output
        @usableFromInline typealias Failure = Prefix.Failure

        @usableFromInline let inner: Publishers.Concatenate<Prefix, Suffix>.Inner<Downstream>
        /// The downstream subscription's, as in Apple's Combine.
        @usableFromInline var combineIdentifier: CombineIdentifier { inner.combineIdentifier }

        @inlinable
        init(inner: Publishers.Concatenate<Prefix, Suffix>.Inner<Downstream>) {
            self.inner = inner
        }

        @inlinable
        func receive(subscription: any Subscription) {
            inner.prefixReceive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Prefix.Output) -> Subscribers.Demand {
            inner.prefixReceive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Prefix.Failure>) {
            inner.prefixReceive(completion: completion)
        }

        @usableFromInline var description: String { "Concatenate" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: []) }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// The subscriber `Concatenate` puts on its suffix once the prefix finishes.
    @usableFromInline
    struct SuffixSide: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
        @usableFromInline typealias Input = Suffix.Output
        @usableFromInline typealias Failure = Suffix.Failure

        @usableFromInline let inner: Publishers.Concatenate<Prefix, Suffix>.Inner<Downstream>
        /// The downstream subscription's, as in Apple's Combine.
        @usableFromInline var combineIdentifier: CombineIdentifier { inner.combineIdentifier }

        @inlinable
        init(inner: Publishers.Concatenate<Prefix, Suffix>.Inner<Downstream>) {
            self.inner = inner
        }

        @inlinable
        func receive(subscription: any Subscription) {
            inner.suffixReceive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Suffix.Output) -> Subscribers.Demand {
            inner.suffixReceive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Suffix.Failure>) {
            inner.suffixReceive(completion: completion)
        }

        @usableFromInline var description: String { "Concatenate" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: []) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

// MARK: Operators

extension Publisher {
    /// Appends a publisher's output with the specified elements.
    ///
    /// ```swift
    /// let dataElements = (0...10)
    /// cancellable = dataElements.publisher
    ///     .append(0, 1, 255)
    ///     .sink { print("\($0)", terminator: " ") }
    /// // Prints: "0 1 2 3 4 5 6 7 8 9 10 0 1 255"
    /// ```
    ///
    /// - Parameter elements: Elements to publish after this publisher's elements.
    /// - Returns: A publisher that appends the specified elements after this publisher's
    ///   elements.
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        Publishers.Concatenate(prefix: self, suffix: Publishers.Sequence(sequence: elements))
    }

    /// Appends a publisher's output with the specified sequence.
    ///
    /// - Parameter elements: A sequence of elements to publish after this publisher's elements.
    /// - Returns: A publisher that appends the sequence of elements after this publisher's
    ///   elements.
    @inlinable
    public func append<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
    where Output == S.Element {
        Publishers.Concatenate(prefix: self, suffix: Publishers.Sequence(sequence: elements))
    }

    /// Appends the output of this publisher with the elements emitted by the given publisher.
    ///
    /// `publisher` is subscribed only after this publisher finishes; if this publisher fails,
    /// `publisher` is never subscribed.
    ///
    /// - Parameter publisher: The appending publisher.
    /// - Returns: A publisher that appends the appending publisher's elements after this
    ///   publisher's elements.
    @inlinable
    public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
    where Output == P.Output, Failure == P.Failure {
        Publishers.Concatenate(prefix: self, suffix: publisher)
    }

    /// Prefixes a publisher's output with the specified values.
    ///
    /// ```swift
    /// let dataElements = (0...10)
    /// cancellable = dataElements.publisher
    ///     .prepend(0, 1, 255)
    ///     .sink { print("\($0)", terminator: " ") }
    /// // Prints: "0 1 255 0 1 2 3 4 5 6 7 8 9 10"
    /// ```
    ///
    /// - Parameter elements: The elements to publish before this publisher's elements.
    /// - Returns: A publisher that prefixes the specified elements prior to this publisher's
    ///   elements.
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        Publishers.Concatenate(prefix: Publishers.Sequence(sequence: elements), suffix: self)
    }

    /// Prefixes a publisher's output with the specified sequence.
    ///
    /// - Parameter elements: A sequence of elements to publish before this publisher's elements.
    /// - Returns: A publisher that prefixes the sequence of elements prior to this publisher's
    ///   elements.
    @inlinable
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
    where Output == S.Element {
        Publishers.Concatenate(prefix: Publishers.Sequence(sequence: elements), suffix: self)
    }

    /// Prefixes the output of this publisher with the elements emitted by the given publisher.
    ///
    /// This publisher is subscribed only after `publisher` finishes; if `publisher` fails, this
    /// publisher is never subscribed.
    ///
    /// - Parameter publisher: The prefixing publisher.
    /// - Returns: A publisher that prefixes the prefixing publisher's elements prior to this
    ///   publisher's elements.
    @inlinable
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
    where Output == P.Output, Failure == P.Failure {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }
}
