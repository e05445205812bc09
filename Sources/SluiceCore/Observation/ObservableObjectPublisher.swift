/// A publisher that publishes changes from observable objects.
///
/// This is the default `objectWillChange` publisher of an ``ObservableObject``: its `@Published`
/// properties call ``send()`` just before they change. It never completes. Like a
/// ``PassthroughSubject``, it delivers to each subscriber that has outstanding demand and drops the
/// signal for the others. Thread-safe; ``send()`` may be called from inside a subscriber.
public final class ObservableObjectPublisher: Publisher, @unchecked Sendable {
    /// The kind of values published by this publisher: `Void`, a bare "will change" signal.
    public typealias Output = Void

    /// This publisher never fails.
    public typealias Failure = Never

    @usableFromInline
    let core = SubjectCore<Void, Never>(name: "ObservableObjectPublisher", currentValue: nil)

    /// Creates an observable object publisher instance.
    @inlinable
    public init() {}

    /// Attaches a subscriber; it receives a signal for every ``send()`` made while it has demand.
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
