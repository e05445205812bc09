/// A protocol indicating that an activity or action supports cancellation.
///
/// Calling ``cancel()`` frees up any allocated resources. It also stops side effects such as
/// timers, network access, or disk I/O. Cancelling twice has no further effect.
public protocol Cancellable {
    /// Cancel the activity. Idempotent and safe to call from any thread.
    func cancel()
}

extension Cancellable {
    /// Stores this cancellable instance in the specified collection, wrapped in an
    /// ``AnyCancellable`` that cancels it when the collection releases it.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        AnyCancellable(self).store(in: &collection)
    }

    /// Stores this cancellable instance in the specified set, wrapped in an ``AnyCancellable``
    /// that cancels it when the set releases it.
    public func store(in set: inout Set<AnyCancellable>) {
        AnyCancellable(self).store(in: &set)
    }
}
