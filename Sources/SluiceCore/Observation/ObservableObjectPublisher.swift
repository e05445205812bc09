/// A publisher that publishes changes from observable objects.
///
/// This is the default `objectWillChange` publisher of an ``ObservableObject``: its `@Published`
/// properties call ``send()`` just before they change. It never completes. Like a
/// ``PassthroughSubject`` without its demand: as Apple's, every subscriber receives every signal,
/// whatever it requested. Thread-safe; ``send()`` may be called from inside a subscriber.
public final class ObservableObjectPublisher: Publisher {
    /// The kind of values published by this publisher: `Void`, a bare "will change" signal.
    public typealias Output = Void

    /// This publisher never fails.
    public typealias Failure = Never

    @usableFromInline
    let core = SubjectCore<Void, Never>(kind: .observableObject, currentValue: nil)

    /// Creates an observable object publisher instance.
    @inlinable
    public init() {}

    /// Attaches a subscriber; it receives a signal for every ``send()``, whatever its demand.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        core.receive(subscriber: subscriber)
    }

    /// Sends the changed value to the downstream subscriber.
    @inlinable
    public func send() {
        core.send(())
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension ObservableObjectPublisher: @unchecked Sendable {}
#endif
