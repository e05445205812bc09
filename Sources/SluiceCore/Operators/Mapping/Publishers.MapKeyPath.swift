extension Publishers {
    /// A publisher that publishes the value of a key path.
    ///
    /// `MapKeyPath` adds no subscription of its own: demand and completion pass straight through.
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath: KeyPath<Upstream.Output, Output>

        @inlinable
        init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.upstream = upstream
            self.keyPath = keyPath
        }

        /// Attaches the subscriber, wrapped so that it receives the property of each value.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let keyPath = self.keyPath
            upstream.attachSubscriber(KeyPathInner(downstream: subscriber, keyPaths: [keyPath]) {
                $0[keyPath: keyPath]
            })
        }
    }
}

/// The subscriber the key-path maps (`MapKeyPath`, `MapKeyPath2`, `MapKeyPath3`) put upstream:
/// forwards the subscription and the completion, and projects each value.
@usableFromInline
struct KeyPathInner<Input, Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let project: (Input) -> Downstream.Input
    /// The key paths projected, for the description and the mirror only.
    @usableFromInline let keyPaths: [AnyKeyPath]
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, keyPaths: [AnyKeyPath], project: @escaping (Input) -> Downstream.Input) {
        self.downstream = downstream
        self.keyPaths = keyPaths
        self.project = project
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(project(input))
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        downstream.receive(completion: completion)
    }

    /// As in Combine: "ValueForKey" for one key path, "ValueForKeys" for several.
    @usableFromInline var description: String { keyPaths.count == 1 ? "ValueForKey" : "ValueForKeys" }
    /// As in Combine: the key path ("keyPath"), or each of them ("keyPath0", "keyPath1"...).
    @usableFromInline var customMirror: Mirror {
        if keyPaths.count == 1 { return Mirror(self, children: ["keyPath": keyPaths[0]]) }
        let children = keyPaths.enumerated().map { (label: Optional("keyPath\($0.offset)"), value: $0.element as Any) }
        return Mirror(self, children: children)
    }
    @usableFromInline var playgroundDescription: Any { description }
}

extension Publisher {
    /// Publishes the value of a key path.
    ///
    /// Demand and completion pass through unchanged.
    ///
    /// - Parameter keyPath: The key path of a property on `Output`.
    /// - Returns: A publisher that publishes the value of the key path.
    @inlinable
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
        Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
    }
}
