extension Publishers {
    /// A publisher that publishes the values of three key paths as a tuple.
    ///
    /// `MapKeyPath3` adds no subscription of its own: demand and completion pass straight through.
    public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
        /// The kind of values published by this publisher: a tuple of the three properties.
        public typealias Output = (Output0, Output1, Output2)
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of a second property to publish.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// The key path of a third property to publish.
        public let keyPath2: KeyPath<Upstream.Output, Output2>

        @inlinable
        init(upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>,
             keyPath1: KeyPath<Upstream.Output, Output1>, keyPath2: KeyPath<Upstream.Output, Output2>) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
            self.keyPath2 = keyPath2
        }

        /// Attaches the subscriber, wrapped so that it receives the three properties of each value.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let keyPath0 = self.keyPath0, keyPath1 = self.keyPath1, keyPath2 = self.keyPath2
            upstream.attachSubscriber(KeyPathInner(downstream: subscriber, keyPaths: [keyPath0, keyPath1, keyPath2]) {
                ($0[keyPath: keyPath0], $0[keyPath: keyPath1], $0[keyPath: keyPath2])
            })
        }
    }
}

extension Publisher {
    /// Publishes the values of three key paths as a tuple.
    ///
    /// Demand and completion pass through unchanged.
    ///
    /// - Parameters:
    ///   - keyPath0: The key path of a property on `Output`.
    ///   - keyPath1: The key path of a second property on `Output`.
    ///   - keyPath2: The key path of a third property on `Output`.
    /// - Returns: A publisher that publishes the values of three key paths as a tuple.
    @inlinable
    public func map<T0, T1, T2>(_ keyPath0: KeyPath<Output, T0>, _ keyPath1: KeyPath<Output, T1>,
                                _ keyPath2: KeyPath<Output, T2>) -> Publishers.MapKeyPath3<Self, T0, T1, T2>
    {
        Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
    }
}
