extension Publishers {
    /// A publisher that buffers items.
    ///
    /// It collects every element of the upstream and publishes them as one array when the
    /// upstream finishes. If the upstream fails, the failure passes through and the array is
    /// discarded.
    public struct Collect<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: an array of the upstream's outputs.
        public typealias Output = [Upstream.Output]

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that collects every upstream element into one array.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through the shared reducing subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.attachSubscriber(ReducingProducer(reducer: Step(), downstream: subscriber, name: "Collect"))
        }
    }
}

extension Publishers.Collect: Equatable where Upstream: Equatable {}

extension Publishers.Collect {
    /// The accumulation step of `Collect`.
    @usableFromInline
    struct Step: Reducer {
        @usableFromInline var elements: [Upstream.Output] = []

        @inlinable
        init() {}

        @inlinable
        mutating func receive(_ input: Upstream.Output) -> ReducerStep<[Upstream.Output], Upstream.Failure> {
            elements.append(input)
            return .continue
        }

        @inlinable
        func result() -> [Upstream.Output]? { elements }

        @inlinable
        func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }

        /// Appending runs no user code: the producer appends under its lock, so that the mirror
        /// can count the elements safely.
        @inlinable
        static var receivesUnderLock: Bool { true }

        /// Apple's mirror of `Collect`'s subscription: the number of elements collected so far.
        @inlinable
        func customMirrorChildren() -> KeyValuePairs<String, Any>? { ["count": elements.count] }
    }
}

extension Publisher {
    /// Collects all received elements, and emits a single array of the collection when the
    /// upstream publisher finishes.
    ///
    /// If the upstream publisher fails with an error, this publisher forwards the error to the
    /// downstream receiver instead of sending its output. This operator uses an unbounded amount
    /// of memory to store the received values.
    ///
    /// - Returns: A publisher that collects all received items and returns them as an array upon
    ///   completion.
    @inlinable
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}

// MARK: Fused overloads

extension Publishers.Sequence {
    /// Collects the whole sequence at once into a publisher of one array.
    @inlinable
    public func collect() -> Result<[Elements.Element], Failure>.Publisher {
        Result<[Elements.Element], Failure>.Publisher(.success(Array(sequence)))
    }
}

extension Just {
    /// Collects the output at once into a one-element array.
    @inlinable
    public func collect() -> Just<[Output]> {
        Just<[Output]>([output])
    }
}

extension Optional.Publisher {
    /// Collects the output at once into an array: a one-element array, or (as Apple's) an empty
    /// array when there is no output.
    @inlinable
    public func collect() -> Optional<[Wrapped]>.Publisher {
        Optional<[Wrapped]>.Publisher(output.map { [$0] } ?? [])
    }
}

extension Result.Publisher {
    /// Collects the output at once into a one-element array, or keeps the failure.
    @inlinable
    public func collect() -> Result<[Success], Failure>.Publisher {
        Result<[Success], Failure>.Publisher(result.map { [$0] })
    }
}
