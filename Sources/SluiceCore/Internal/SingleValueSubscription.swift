/// The subscription of publishers that deliver one value and finish (`Just`, `Result.Publisher`,
/// `Optional.Publisher`): on the first request it sends the value, then `.finished`. Nothing is
/// sent after `cancel()`.
///
/// The value goes out from inside `request(_:)`, which the subscriber calls through
/// `any Subscription` and so runs unspecialised: everything the value sets off downstream would run
/// unspecialised with it (a `flatMap` subscribing to a sequence, then every element of that
/// sequence, looking up generic metadata each time). So a request enters specialised code through
/// ``requestEntry``, made in `init` where `S` is concrete (see `SubjectSubscription.requestEntry`).
@usableFromInline
final class SingleValueSubscription<S: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline let lock = Lock()
    /// Guarded by `lock` (as `isCancelled` is): their exclusivity is explicit, no runtime checks.
    @exclusivity(unchecked) @usableFromInline var heldDownstream: AnyObject?
    /// Held as ``HeldReference`` says: a subscriber that is a class instance (a `flatMap`'s inner
    /// subscriber, a sink) without a box of its own; deinit, which runs unspecialised, releases a
    /// reference instead of looking up `Optional` metadata (see ``Boxed``).
    @inlinable var downstream: S? {
        get { heldDownstream.map { HeldReference.value(of: $0, isObject: downstreamIsObject) } }
        set { heldDownstream = newValue.map { HeldReference.hold($0, isObject: downstreamIsObject) } }
    }
    /// ``HeldReference/isObject`` for the subscriber's type.
    @usableFromInline let downstreamIsObject: Bool
    /// Set by `cancel()`: a cancel from inside `receive(_:)` suppresses the completion.
    @exclusivity(unchecked) @usableFromInline var isCancelled = false
    @usableFromInline let value: S.Input
    @usableFromInline let name: String
    @usableFromInline let requestEntry: (SingleValueSubscription) -> Void

    @inlinable
    init(_ value: S.Input, downstream: S, name: String) {
        self.value = value
        downstreamIsObject = HeldReference<S>.isObject
        heldDownstream = HeldReference.hold(downstream, isObject: downstreamIsObject)
        self.name = name
        requestEntry = { $0.deliver() }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        requestEntry(self)
    }

    /// Sends the value and `.finished`, once.
    @inlinable
    func deliver() {
        guard let downstream = lock.withLock({ () -> S? in
            defer { self.downstream = nil }
            return self.downstream
        }) else { return }
        _ = downstream.receive(value)
        if lock.withLock({ isCancelled }) { return }
        downstream.receive(completion: .finished)
    }

    @inlinable
    func cancel() {
        let released = lock.withLock { () -> S? in
            isCancelled = true
            defer { downstream = nil }
            return downstream
        }
        _ = released
    }

    @usableFromInline var description: String { name }
    /// The value, as one unlabelled child (as Apple's).
    @usableFromInline var customMirror: Mirror { Mirror(self, unlabeledChildren: [value]) }
    @usableFromInline var playgroundDescription: Any { description }
}
