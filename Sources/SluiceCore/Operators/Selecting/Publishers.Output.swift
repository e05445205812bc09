extension Publishers {
    /// A publisher that publishes elements specified by a range in the sequence of published
    /// elements.
    ///
    /// Values before the range are dropped (their demand is replaced from the upstream); values in
    /// the range are republished; after the range's last element it cancels the upstream and
    /// finishes (returning, as Combine does, the demand the subscriber returned for that element).
    /// As in Combine, values an upstream sends before its subscription are counted and published
    /// too but never end the stream, a completion before the subscription is ignored, and a
    /// subscription arriving after the subscriber cancelled is ignored.
    public struct Output<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// The range of elements to publish.
        public let range: CountableRange<Int>

        /// Creates a publisher that publishes elements specified by a range.
        ///
        /// - Parameters:
        ///   - upstream: The publisher that this publisher receives elements from.
        ///   - range: The range of elements to publish.
        @inlinable
        public init(upstream: Upstream, range: CountableRange<Int>) {
            precondition(range.lowerBound >= 0, "lowerBound must not be negative")
            self.upstream = upstream
            self.range = range
        }

        /// Attaches the subscriber through the operator's own subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(Inner(downstream: subscriber, range: range))
        }
    }
}

extension Publishers.Output {
    /// The upstream's subscriber and the downstream's subscription of `Output`.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let lock = Lock()
        @usableFromInline let range: CountableRange<Int>
        // Guarded by `lock`:
        @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()
        @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
        /// The index of the next upstream value.
        @exclusivity(unchecked) @usableFromInline var index = 0
        /// Set by a `cancel()` that came before the upstream's subscription.
        @exclusivity(unchecked) @usableFromInline var cancelledUnsubscribed = false

        @inlinable
        init(downstream: Downstream, range: CountableRange<Int>) {
            self.downstream = downstream
            self.range = range
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let (target, refuse) = lock.withLock { () -> (Downstream?, Bool) in
                // As in Combine, a subscription arriving after a cancel that came before any
                // subscription is ignored, not cancelled.
                if cancelledUnsubscribed { return (nil, false) }
                guard let downstream, upstream.attach(subscription) else { return (nil, true) }
                return (downstream, false)
            }
            guard let target else {
                if refuse { subscription.cancel() }
                return
            }
            target.receive(subscription: self)
        }

        @usableFromInline
        enum Step {
            case drop, forward(Downstream, last: Bool), finish, ignore
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let step = lock.withLock { () -> Step in
                // As in Combine, values that arrive before the subscription are counted and
                // published too, but they never end the stream.
                guard !upstream.isTerminal, let downstream else { return .ignore }
                let subscribed = upstream.subscription != nil
                let position = index
                index += 1
                if position < range.lowerBound { return .drop }
                if position < range.upperBound {
                    return .forward(downstream, last: subscribed && position == range.upperBound - 1)
                }
                return subscribed ? .finish : .ignore
            }
            switch step {
            case .ignore:
                return .none
            case .drop:
                return .max(1)
            case .forward(let target, let last):
                let demand = target.receive(input)
                if last { finishEarly() }
                return demand  // as in Combine, even for the last value
            case .finish:
                finishEarly()
                return .none
            }
        }

        /// Cancels the upstream and finishes the downstream, once.
        @inlinable
        func finishEarly() {
            let (subscription, target) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
                guard !upstream.isTerminal else { return (nil, nil) }
                defer { downstream = nil }
                return (upstream.detach(), downstream)
            }
            subscription?.cancel()
            target?.receive(completion: .finished)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let target = lock.withLock { () -> Downstream? in
                // As in Combine, a completion before the subscription is ignored.
                if upstream.isAwaiting { return nil }
                guard upstream.finish() else { return nil }
                defer { downstream = nil }
                return downstream
            }
            target?.receive(completion: completion)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            lock.withLock { upstream.subscription }?.request(demand)
        }

        @inlinable
        func cancel() {
            let (subscription, released) = lock.withLock { () -> ((any Subscription)?, Downstream?) in
                if upstream.isAwaiting { cancelledUnsubscribed = true }
                defer { downstream = nil }
                return (upstream.detach(), downstream)
            }
            subscription?.cancel()
            _ = released
        }

        @usableFromInline var description: String { "Output" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: [:])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Publishes a specific element, indicated by its index in the sequence of published
    /// elements.
    ///
    /// If the publisher completes normally or with an error before publishing the specified
    /// element, then the publisher doesn't produce any elements.
    ///
    /// - Parameter index: The index that indicates the element to publish.
    /// - Returns: A publisher that publishes a specific indexed element.
    @inlinable
    public func output(at index: Int) -> Publishers.Output<Self> {
        output(in: index...index)
    }

    /// Publishes elements specified by their range in the sequence of published elements.
    ///
    /// After all elements are published, the publisher finishes normally. If the publisher
    /// completes normally or with an error before producing all the elements in the range, it
    /// doesn't publish the remaining elements.
    ///
    /// - Parameter range: A range that indicates which elements to publish.
    /// - Returns: A publisher that publishes elements specified by a range.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
    }
}

// MARK: Fused overloads

extension Just {
    /// Selects at once: the result publishes the output if `index` is `0`, and is empty otherwise.
    @inlinable
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "index must not be negative")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Selects at once, as Apple's does: the result publishes the output if `range` starts at `0`
    /// (even an empty `0..<0`), and is empty otherwise; a negative bound does not trap.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        Optional<Output>.Publisher(range.relative(to: 0..<Int.max).lowerBound == 0 ? output : nil)
    }
}

extension Publisher {
    /// Republishes elements up to the specified maximum count.
    ///
    /// After publishing `maxLength` elements, the publisher cancels its upstream and finishes.
    /// It is `output(in: 0..<maxLength)`.
    ///
    /// ```swift
    /// let numbers = (0...10)
    /// cancellable = numbers.publisher
    ///     .prefix(2)
    ///     .sink { print("\($0)", terminator: " ") }
    /// // Prints: "0 1 "
    /// ```
    ///
    /// - Parameter maxLength: The maximum number of elements to republish; must not be negative.
    /// - Returns: A publisher that publishes up to the specified number of elements before
    ///   completing.
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return output(in: 0..<maxLength)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Takes the first elements of the sequence itself.
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
        Publishers.Sequence<PrefixSequence<Elements>, Failure>(sequence: PrefixSequence(sequence, maxLength: maxLength))
    }
}

extension Just {
    /// Keeps the one output if `maxLength` is positive.
    @inlinable
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }
}

extension Optional.Publisher {
    /// Selects at once: the result publishes the value if there is one and `index` is `0`, and is
    /// empty otherwise.
    @inlinable
    public func output(at index: Int) -> Optional<Wrapped>.Publisher {
        precondition(index >= 0, "index must not be negative")
        return Optional<Wrapped>.Publisher(index == 0 ? output : nil)
    }

    /// Selects at once: the result publishes the value if there is one and `range` contains `0`,
    /// and is empty otherwise. As Apple's, a negative lower bound, or an upper bound above
    /// `Int.max - 2`, stops the program.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Wrapped>.Publisher where R.Bound == Int {
        let range = range.relative(to: 0..<Int.max)
        precondition(range.lowerBound >= 0, "lowerBound must not be negative")
        precondition(range.upperBound < Int.max - 1, "upperBound must be less than Int.max - 1")
        return Optional<Wrapped>.Publisher(range.contains(0) ? output : nil)
    }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// Selects the element at a collection index at once; the result is empty when the index is
    /// not one of the collection's `indices`.
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// Selects the elements in a range of collection indices at once (as Apple's: the range
    /// must be within the collection's bounds).
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// Selects the element at a collection index at once; the result is empty when the index is
    /// not one of the collection's `indices`.
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
    /// Selects the elements in a range of collection indices at once (as Apple's: the range
    /// must be within the collection's bounds).
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Optional.Publisher {
    /// Keeps the output, if any, if `maxLength` is positive.
    @inlinable
    public func prefix(_ maxLength: Int) -> Optional<Wrapped>.Publisher {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Optional<Wrapped>.Publisher(maxLength > 0 ? output : nil)
    }
}
