extension Subscribers {
    /// A simple subscriber that assigns received elements to a property indicated by a key path.
    ///
    /// It requests `.unlimited` values, and holds ``object`` strongly until it completes or is
    /// cancelled; then it releases both the object and the subscription.
    public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        /// Assign never fails.
        public typealias Failure = Never

        /// The key path that indicates the property to assign.
        public let keyPath: ReferenceWritableKeyPath<Root, Input>

        /// The object that contains the property; `nil` after completion or cancellation.
        public var object: Root? { lock.withLock { storedObject } }

        // Guarded by `lock`, which makes their exclusivity explicit: no runtime checks.
        @exclusivity(unchecked) @usableFromInline var storedObject: Root?
        @usableFromInline let lock = Lock()
        @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()

        /// Creates a subscriber to assign the value of a property indicated by a key path.
        @inlinable
        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            storedObject = object
            self.keyPath = keyPath
        }

        /// Keeps the first subscription and requests `.unlimited`; cancels any later one.
        @inlinable
        public func receive(subscription: any Subscription) {
            if lock.withLock({ upstream.attach(subscription) }) {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Assigns the value to the object's property (outside the lock) and returns `.none`. As
        /// Apple's, a value that arrives before the subscription (or after the end) is ignored.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            lock.withLock { () -> Root? in
                guard upstream.isSubscribed else { return nil }
                return storedObject
            }?[keyPath: keyPath] = value
            return .none
        }

        /// Releases the object and the subscription.
        public func receive(completion: Subscribers.Completion<Never>) {
            let object = lock.withLock { () -> Root? in
                _ = upstream.finish()
                defer { storedObject = nil }
                return storedObject
            }
            _ = object  // released here, outside the lock
        }

        /// Cancels the subscription and releases it and the object. Idempotent and thread-safe.
        public func cancel() {
            let (subscription, object) = lock.withLock { () -> ((any Subscription)?, Root?) in
                defer { storedObject = nil }
                return (upstream.detach(), storedObject)
            }
            _ = object
            subscription?.cancel()
        }

        /// `"Assign Root."`, naming the type of the object.
        public var description: String { "Assign \(Root.self)." }

        /// A mirror showing the object, the key path and the subscription status (as Apple's).
        public var customMirror: Mirror {
            let (object, status) = lock.withLock { (storedObject, upstream) }
            return Mirror(self, children: ["object": object as Any, "keyPath": keyPath, "status": status])
        }

        /// The same as ``description``.
        public var playgroundDescription: Any { description }
    }
}

extension Publisher where Failure == Never {
    /// Assigns each element from a publisher to a property on an object.
    ///
    /// The subscriber holds `object` strongly until the publisher completes or the returned
    /// cancellable is cancelled. - Returns: A cancellable instance that ends the assignment.
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable {
        let subscriber = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Subscribers.Assign: @unchecked Sendable {}
#endif
