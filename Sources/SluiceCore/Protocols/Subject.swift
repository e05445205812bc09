/// A publisher that exposes a method for outside callers to publish elements.
///
/// A subject is a publisher that you can use to "inject" values into a stream, by calling its
/// ``send(_:)`` method. Sluice's subjects are thread-safe: `send` may be called from any thread.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Sends a value to the subscriber.
    func send(_ value: Output)
    /// Sends a completion signal to the subscriber. Values sent after it are ignored.
    func send(completion: Subscribers.Completion<Failure>)
    /// Provides this subject an upstream subscription; the subject requests `.unlimited` from it.
    func send(subscription: any Subscription)
}

extension Subject where Output == Void {
    /// Sends a void value to the subscriber.
    @inlinable
    public func send() {
        send(())
    }
}
