/// A type-erasing cancellable object that executes a provided closure when cancelled.
///
/// An `AnyCancellable` automatically calls ``cancel()`` when deinitialized, so a subscription held
/// in one lives exactly as long as the `AnyCancellable` does. ``cancel()`` is thread-safe and runs
/// the cancellation at most once.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    /// What cancelling does; `nil` once cancelled. Guarded by `lock` (so it skips the runtime
    /// exclusivity checks).
    @exclusivity(unchecked) private var action: Action?
    private let lock = Lock()

    private enum Action {
        case closure(() -> Void)
        case cancellable(any Cancellable)

        func run() {
            switch self {
            case .closure(let cancel): cancel()
            case .cancellable(let cancellable): cancellable.cancel()
            }
        }
    }

    /// Initializes the cancellable object with the given cancel-time closure.
    public init(_ cancel: @escaping () -> Void) {
        action = .closure(cancel)
    }

    /// Initializes the cancellable object with the given cancellable, which it cancels when
    /// cancelled or deinitialized.
    public init<C: Cancellable>(_ canceller: C) {
        action = .cancellable(canceller)
    }

    /// Cancels the activity. Only the first call has an effect.
    public func cancel() {
        let action = lock.withLock { () -> Action? in
            defer { self.action = nil }
            return self.action
        }
        action?.run()
    }

    deinit {
        action?.run()
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
