/// A type-erasing cancellable object that executes a provided closure when cancelled.
///
/// An `AnyCancellable` automatically calls ``cancel()`` when deinitialized, so a subscription held
/// in one lives exactly as long as the `AnyCancellable` does. ``cancel()`` is thread-safe and runs
/// the cancellation at most once.
public final class AnyCancellable: Cancellable, Hashable {
    /// What cancelling does; `nil` once cancelled. Guarded by `lock` (so it skips the runtime
    /// exclusivity checks). One closure for both initialisers: wrapping a class (a `Sink`, a
    /// subscription) it captures just that reference, and copying it out is one retain.
    @exclusivity(unchecked) @usableFromInline var action: (() -> Void)?
    private let lock = Lock()

    /// Initializes the cancellable object with the given cancel-time closure.
    public init(_ cancel: @escaping () -> Void) {
        action = cancel
    }

    /// Initializes the cancellable object with the given cancellable, which it cancels when
    /// cancelled or deinitialized.
    @inlinable
    public init<C: Cancellable>(_ canceller: C) {
        action = canceller.cancel
    }

    /// Cancels the activity. Only the first call has an effect.
    public func cancel() {
        let action = lock.withLock { () -> (() -> Void)? in
            defer { self.action = nil }
            return self.action
        }
        action?()
    }

    deinit {
        action?()
    }

    /// Two `AnyCancellable` values are equal when they are the same object.
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
        lhs === rhs
    }

    /// Hashes the identity of this object.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// Stores this type-erasing cancellable instance in the specified collection.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    /// Stores this type-erasing cancellable instance in the specified set.
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension AnyCancellable: @unchecked Sendable {}
#endif
