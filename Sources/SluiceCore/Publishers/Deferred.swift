/// A publisher that awaits subscription before running the supplied closure to create a publisher
/// for the new subscriber.
///
/// Every subscription runs ``createPublisher`` again and attaches the subscriber to the publisher it
/// returns, so each subscriber gets its own, freshly created upstream — wrap a ``Future`` in
/// `Deferred` to start its work on subscription rather than on creation. Demand, cancellation and
/// threading are those of the created publisher; `Deferred` adds no subscription of its own.
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    /// The kind of values published by this publisher: the created publisher's.
    public typealias Output = DeferredPublisher.Output

    /// The kind of errors this publisher might publish: the created publisher's.
    public typealias Failure = DeferredPublisher.Failure

    /// The closure to execute when this deferred publisher receives a subscription.
    ///
    /// The publisher returned by this closure immediately receives the incoming subscription.
    public let createPublisher: () -> DeferredPublisher

    /// Creates a deferred publisher.
    ///
    /// - Parameter createPublisher: The closure to execute when calling `subscribe(_:)`.
    @inlinable
    public init(createPublisher: @escaping () -> DeferredPublisher) {
        self.createPublisher = createPublisher
    }

    /// Creates a new publisher with ``createPublisher`` and attaches the subscriber to it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        createPublisher().subscribe(subscriber)
    }
}
