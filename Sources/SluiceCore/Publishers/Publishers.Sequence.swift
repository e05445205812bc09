import Synchronization

extension Publishers {
    /// A publisher that publishes a given sequence of elements.
    ///
    /// Elements are sent only as the subscriber requests them; `.finished` follows the last one
    /// immediately (an empty sequence finishes on subscription, without needing demand). After the
    /// subscriber cancels, nothing more is sent.
    public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
        /// The kind of values published by this publisher: the sequence's elements.
        public typealias Output = Elements.Element

        /// The sequence of elements to publish.
        public let sequence: Elements

        /// Creates a publisher for a sequence of elements.
        @inlinable
        public init(sequence: Elements) {
            self.sequence = sequence
        }

        /// Sends the subscriber a subscription that yields the elements on demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            var iterator = sequence.makeIterator()
            guard let first = iterator.next() else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
                return
            }
            subscriber.receive(subscription: Inner(downstream: subscriber, iterator: iterator, first: first, sequence: sequence))
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}
// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Publishers.Sequence: Sendable where Elements: Sendable {}
#endif

extension Publishers.Sequence {
    /// The subscription: a pump that sends elements while there is demand, then ``completion``.
    ///
    /// Shared with ``Record``, which replays its recorded output through it followed by the
    /// recorded completion (`completion`, `endedName` and `mirrorsCompletion` exist for it).
    ///
    /// As Apple's: while live it describes itself as its sequence (`String(describing:)`) and
    /// mirrors it as `sequence`; once finished or cancelled it is `endedName` ("Sequence", or
    /// "Cancelled Events" for a record) and mirrors an empty array. A request of `.none` is
    /// ignored (Apple's does not trap on it).
    ///
    /// Only the thread that is pumping touches the iterator (the `isPumping` flag, set and cleared
    /// under the lock, hands it over), so the sequence's own code runs outside the lock. A request
    /// made while pumping — from another thread or from inside `receive` — only adds demand; the
    /// pumping thread picks it up.
    ///
    /// Speed: subscribers call `request(_:)` through `any Subscription`, which runs this class's
    /// generic code unspecialised. So the per-element loop is entered through `pumpEntry`, a
    /// closure made in `init` — code that is inlined where the pipeline's types are concrete — and
    /// therefore compiled specialised in the client's module: the loop, the downstream chain and
    /// the iterator run without generic dispatch. The lock makes the exclusivity of the mutable
    /// fields explicit, so they skip the runtime exclusivity checks.
    @usableFromInline
    final class Inner<S: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where S.Input == Elements.Element, S.Failure == Failure {
        @usableFromInline let lock = Lock()
        @exclusivity(unchecked) @usableFromInline var heldDownstream: AnyObject?
        /// Held as ``HeldReference`` says (a sink without a box of its own; read once per pump, not
        /// per element); deinit, which runs unspecialised, releases a reference instead of looking
        /// up `Optional` metadata (see ``Boxed``).
        @inlinable var downstream: S? {
            get { heldDownstream.map { HeldReference.value(of: $0, isObject: downstreamIsObject) } }
            set { heldDownstream = newValue.map { HeldReference.hold($0, isObject: downstreamIsObject) } }
        }
        /// ``HeldReference/isObject`` for the subscriber's type.
        @usableFromInline let downstreamIsObject: Bool
        /// `false` once cancelled or finished.
        @exclusivity(unchecked) @usableFromInline var isLive = true
        /// Set by `cancel()` (as well as `isLive`): read without the lock by the pump once the demand
        /// is unlimited, so that an unlimited stream costs no lock round trip per element.
        @usableFromInline let isCancelled = Atomic<Bool>(false)
        @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
        @exclusivity(unchecked) @usableFromInline var isPumping = false
        /// Owned by the pumping thread.
        @exclusivity(unchecked) @usableFromInline var iterator: Elements.Iterator
        /// The element to send next; owned by the pumping thread.
        @exclusivity(unchecked) @usableFromInline var next: Elements.Element?
        @usableFromInline let sequence: Elements
        /// Sent after the last element.
        @usableFromInline let completion: Subscribers.Completion<Failure>
        /// The description once finished or cancelled.
        @usableFromInline let endedName: String
        /// Whether the mirror shows ``completion`` (a record's does).
        @usableFromInline let mirrorsCompletion: Bool
        /// `{ $0.pump() }`, specialised for the concrete pipeline (see above).
        @usableFromInline let pumpEntry: (Inner) -> Void

        @inlinable
        init(
            downstream: S, iterator: Elements.Iterator, first: Elements.Element, sequence: Elements,
            completion: Subscribers.Completion<Failure> = .finished, endedName: String = "Sequence",
            mirrorsCompletion: Bool = false
        ) {
            downstreamIsObject = HeldReference<S>.isObject
            heldDownstream = HeldReference.hold(downstream, isObject: downstreamIsObject)
            self.iterator = iterator
            next = first
            self.sequence = sequence
            self.completion = completion
            self.endedName = endedName
            self.mirrorsCompletion = mirrorsCompletion
            pumpEntry = { $0.pump() }
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            if demand == .none { return }
            let start = lock.withLock { () -> Bool in
                self.demand += demand
                guard isLive, !isPumping else { return false }
                isPumping = true
                return true
            }
            if start {
                pumpEntry(self)
            }
        }

        /// With the lock held: takes one unit of demand if the subscription is live and has any;
        /// otherwise stops pumping.
        @inlinable
        func claim() -> Bool {
            if isLive && demand > 0 {
                demand -= 1
                return true
            }
            isPumping = false
            return false
        }

        /// Sends elements, one claimed unit of demand at a time, until demand runs out, the
        /// subscription is cancelled, or the sequence ends. Called with `isPumping` set.
        @inlinable
        func pump() {
            guard let claimed = lock.withLock({ claim() ? (self.downstream, demand == .unlimited) : nil }),
                  let downstream = claimed.0
            else { return }
            var unlimited = claimed.1
            while true {
                let more = downstream.receive(next.unsafelyUnwrapped)
                next = iterator.next()
                let finished = next == nil
                // Unlimited demand stays unlimited (`more` cannot change it): only a cancel can stop
                // the stream before its end, and the flag says so without the lock.
                if unlimited && !finished && !isCancelled.load(ordering: .relaxed) { continue }
                let proceed = lock.withLock { () -> Bool in
                    self.demand += more
                    guard isLive else {
                        isPumping = false
                        return false
                    }
                    if finished {
                        isLive = false
                        isPumping = false
                        self.downstream = nil
                        return true
                    }
                    unlimited = demand == .unlimited
                    return claim()
                }
                if finished {
                    if proceed { downstream.receive(completion: completion) }
                    return
                }
                if !proceed { return }
            }
        }

        @inlinable
        func cancel() {
            let released = lock.withLock { () -> S? in
                isLive = false
                isCancelled.store(true, ordering: .relaxed)
                defer { downstream = nil }
                return downstream
            }
            _ = released
        }

        /// The sequence, as `String(describing:)` shows it, while live; ``endedName`` afterwards.
        @usableFromInline var description: String {
            lock.withLock { isLive } ? String(describing: sequence) : endedName
        }
        /// `sequence` (an empty array once ended), and for a record its `completion`.
        @usableFromInline var customMirror: Mirror {
            let shown: Any = lock.withLock { isLive } ? sequence : [Elements.Element]()
            if mirrorsCompletion {
                return Mirror(self, children: ["sequence": shown, "completion": completion])
            }
            return Mirror(self, children: ["sequence": shown])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Sequence {
    /// A publisher that publishes the elements of this sequence, on demand.
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> {
        Publishers.Sequence(sequence: self)
    }
}

extension Publishers.Sequence {
    /// Transforms every element at once, returning a publisher of the transformed array.
    @inlinable
    public func map<T>(_ transform: (Elements.Element) -> T) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.map(transform))
    }

    /// Filters the elements at once, returning a publisher of the matching array.
    @inlinable
    public func filter(_ isIncluded: (Elements.Element) -> Bool) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.filter(isIncluded))
    }
}
