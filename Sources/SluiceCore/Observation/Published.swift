/// A type that publishes a property marked with an attribute.
///
/// Publishing a property with the `@Published` attribute creates a publisher of this type. You
/// access the publisher with the `$` operator:
///
/// ```swift
/// class Weather {
///     @Published var temperature: Double
///     init(temperature: Double) {
///         self.temperature = temperature
///     }
/// }
///
/// let weather = Weather(temperature: 20)
/// cancellable = weather.$temperature
///     .sink() {
///         print ("Temperature now: \($0)")
/// }
/// weather.temperature = 25
///
/// // Prints:
/// // Temperature now: 20.0
/// // Temperature now: 25.0
/// ```
///
/// When the property changes, publishing occurs in the property's `willSet` block, meaning
/// subscribers receive the new value before it's actually set on the property: a subscriber that
/// reads the property while receiving a value sees the old one. In a class that adopts
/// ``ObservableObject``, the object's `objectWillChange` publisher fires first, then the property's
/// own publisher.
///
/// The `@Published` attribute is class constrained: use it with properties of classes, not with
/// non-class types like structures.
@propertyWrapper
public struct Published<Value> {
    /// The shared storage: the value, its subscribers, and the owner's `objectWillChange` once
    /// installed. A class, so that the copies `Mirror` and key paths hand out are the same storage.
    @usableFromInline
    var box: PublishedBox<Value>

    /// Creates the published instance with an initial wrapped value.
    ///
    /// Don't use this initializer directly. Instead, create a property with the `@Published`
    /// attribute, as shown here:
    ///
    /// ```swift
    /// @Published var lastUpdated: Date = Date()
    /// ```
    ///
    /// - Parameter wrappedValue: The publisher's initial value.
    @inlinable
    public init(wrappedValue: Value) {
        box = PublishedBox(wrappedValue)
    }

    /// Creates the published instance with an initial value.
    ///
    /// Don't use this initializer directly. Instead, create a property with the `@Published`
    /// attribute, as shown here:
    ///
    /// ```swift
    /// @Published var lastUpdated: Date = Date()
    /// ```
    ///
    /// - Parameter initialValue: The publisher's initial value.
    @inlinable
    public init(initialValue: Value) {
        box = PublishedBox(initialValue)
    }

    /// Unavailable: `@Published` is only available on properties of classes, which access the value
    /// through ``subscript(_enclosingInstance:wrapped:storage:)``.
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError("@Published is only available on properties of classes") }
        set { fatalError("@Published is only available on properties of classes") }
    }

    /// The property for which this instance exposes a publisher.
    ///
    /// The ``projectedValue`` is the property accessed with the `$` operator. As with Apple's,
    /// assigning to it changes neither the property's value nor its publisher.
    public var projectedValue: Publisher {
        @inlinable
        mutating get { Publisher(box) }
        @inlinable
        set { _ = newValue }
    }

    /// Reads and writes the property of `object` that this wrapper stores.
    ///
    /// The setter publishes in `willSet` order: the object's installed `objectWillChange` publisher
    /// (see ``ObservableObject``) fires, then the new value is sent to the property's subscribers,
    /// then it is stored. No lock is held while subscribers run.
    @inlinable
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get {
            object[keyPath: storageKeyPath].box.value
        }
        set {
            let box = object[keyPath: storageKeyPath].box
            box.set(newValue)
        }
    }
}

extension Published {
    /// A publisher for properties marked with the `@Published` attribute.
    ///
    /// A subscriber receives the property's current value as soon as it requests demand, then every
    /// new value, delivered before the property is updated. A subscriber without demand when values
    /// are set receives the latest of them once it requests more. It never completes. Thread-safe.
    public struct Publisher: SluiceCore.Publisher {
        /// The kind of values published by this publisher: the property's type.
        public typealias Output = Value

        /// The kind of errors this publisher might publish: it never fails.
        public typealias Failure = Never

        @usableFromInline
        let box: PublishedBox<Value>

        @inlinable
        init(_ box: PublishedBox<Value>) {
            self.box = box
        }

        /// Attaches a subscriber; it receives the current value when it first requests demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            box.core.receive(subscriber: subscriber)
        }
    }
}

extension Publisher where Failure == Never {
    /// Republishes elements received from a publisher, by assigning them to a property marked as a
    /// publisher.
    ///
    /// Use this operator when you want to receive elements from a publisher and republish them
    /// through a property marked with the `@Published` attribute. Each assignment fires the owning
    /// object's `objectWillChange` like any other change of the property. The subscription requests
    /// `.unlimited`, ignores the upstream's completion, and lives as long as the `Published`
    /// property: it is cancelled automatically when the property's storage deinitializes (with its
    /// object), and it holds that storage weakly, so `publisher.assign(to: &$property)` inside the
    /// owning object creates no retain cycle. That is why this operator doesn't return an
    /// ``AnyCancellable``.
    ///
    /// ```swift
    /// class MyModel: ObservableObject {
    ///     @Published var lastUpdated: Date = Date()
    ///     init() {
    ///         Timer.publish(every: 1.0, on: .main, in: .common)
    ///             .autoconnect()
    ///             .assign(to: &$lastUpdated)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter published: A property marked with the `@Published` attribute, which receives and
    ///   republishes all elements received from the upstream publisher.
    @inlinable
    public func assign(to published: inout Published<Output>.Publisher) {
        let box = published.box
        let subscriber = PublishedAssignment(box)
        box.retain(subscriber)
        subscribe(subscriber)
    }
}

// MARK: - Storage

/// The part of a `@Published` property's storage that does not depend on its value type: the owning
/// object's `objectWillChange` publisher, once installed, and the `assign(to:)` subscriptions the
/// property keeps alive. ``ObservableObject``'s default `objectWillChange` finds these through
/// ``PublishedStorage``.
@usableFromInline
class PublishedBoxBase: @unchecked Sendable {
    @usableFromInline
    let lock = Lock()

    /// The owner's `objectWillChange`; guarded by `lock`, set once.
    @usableFromInline
    var willChange: ObservableObjectPublisher?

    /// The `assign(to:)` subscriptions feeding this property; guarded by `lock`.
    var assignments: [any Cancellable & AnyObject] = []

    @inlinable
    init() {}

    /// The owner's `objectWillChange` publisher, if installed.
    @inlinable
    var objectWillChange: ObservableObjectPublisher? {
        lock.withLock { willChange }
    }

    /// Installs `publisher` as the owner's `objectWillChange` unless one already is; returns the one
    /// installed.
    func install(_ publisher: ObservableObjectPublisher) -> ObservableObjectPublisher {
        lock.withLock {
            if let willChange { return willChange }
            willChange = publisher
            return publisher
        }
    }

    /// Keeps an `assign(to:)` subscription alive while this storage lives.
    @usableFromInline
    func retain(_ assignment: any Cancellable & AnyObject) {
        lock.withLock { assignments.append(assignment) }
    }

    /// Forgets an `assign(to:)` subscription whose upstream completed.
    @usableFromInline
    func release(_ assignment: AnyObject) {
        let removed = lock.withLock { () -> (any Cancellable & AnyObject)? in
            guard let index = assignments.firstIndex(where: { $0 === assignment }) else { return nil }
            return assignments.remove(at: index)
        }
        _ = removed  // released outside the lock
    }

    deinit {
        for assignment in assignments {
            assignment.cancel()
        }
    }
}

/// The storage of one `@Published` property: a current-value ``SubjectCore`` holding the value
/// and the property's subscribers.
@usableFromInline
final class PublishedBox<Value>: PublishedBoxBase, @unchecked Sendable {
    @usableFromInline
    let core: SubjectCore<Value, Never>

    @inlinable
    init(_ value: Value) {
        core = SubjectCore(kind: .published, currentValue: value)
    }

    /// The current value.
    @inlinable
    var value: Value {
        core.currentValue
    }

    /// Changes the value with `willSet` semantics: fires the owner's `objectWillChange`, sends the
    /// new value to the subscribers (who still read the old one from the property), then stores it.
    @inlinable
    func set(_ newValue: Value) {
        objectWillChange?.send()
        core.send(newValue, storingFirst: false)
        core.store(newValue)
    }
}

/// What ``ObservableObject``'s default `objectWillChange` looks for among an object's stored
/// properties (through `Mirror`): a `@Published` property's storage.
protocol PublishedStorage {
    /// The storage shared by every copy of the property wrapper.
    var publishedBox: PublishedBoxBase { get }
}

extension Published: PublishedStorage {
    var publishedBox: PublishedBoxBase { box }
}

/// The subscriber behind `assign(to:)`: assigns every value to a `@Published` property's storage.
///
/// The storage keeps this subscriber alive and cancels it when it deinitializes; this subscriber
/// holds the storage weakly, so no cycle forms (object → storage → subscriber ⇢ storage).
/// Inlinable, so that each value's assignment runs specialised for the property's type.
@usableFromInline
final class PublishedAssignment<Value>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Failure = Never

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var upstream = UpstreamStatus()   // guarded by `lock`
    /// Set once, in `init`; weak so the property's storage can deinitialize.
    @exclusivity(unchecked) @usableFromInline weak var box: PublishedBox<Value>?

    @inlinable
    init(_ box: PublishedBox<Value>) {
        self.box = box
    }

    @inlinable
    func receive(subscription: any Subscription) {
        if lock.withLock({ upstream.attach(subscription) }) {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    @inlinable
    func receive(_ input: Value) -> Subscribers.Demand {
        guard !lock.withLock({ upstream.isTerminal }) else { return .none }
        box?.set(input)
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Never>) {
        if lock.withLock({ upstream.finish() }) {
            box?.release(self)
        }
    }

    @inlinable
    func cancel() {
        lock.withLock { upstream.detach() }?.cancel()
    }

    @usableFromInline var description: String { "PublishedSubscriber" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

// `Sendable` when its values are: the storage it reads is thread-safe. Apple's is not `Sendable`:
// under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Published.Publisher: Sendable where Value: Sendable {}
#endif
