
/// A type of object with a publisher that emits before the object has changed.
///
/// By default an `ObservableObject` synthesizes an `objectWillChange` publisher that
/// emits the changed value before any of its `@Published` properties changes.
///
/// ```swift
/// class Contact: ObservableObject {
///     @Published var name: String
///     @Published var age: Int
///
///     init(name: String, age: Int) {
///         self.name = name
///         self.age = age
///     }
///
///     func haveBirthday() -> Int {
///         age += 1
///         return age
///     }
/// }
///
/// let john = Contact(name: "John Appleseed", age: 24)
/// cancellable = john.objectWillChange
///     .sink { _ in
///         print("\(john.age) will change")
/// }
/// print(john.haveBirthday())
/// // Prints "24 will change"
/// // Prints "25"
/// ```
public protocol ObservableObject: AnyObject {
    /// The type of publisher that emits before the object has changed.
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where ObjectWillChangePublisher.Failure == Never

    /// A publisher that emits before the object has changed.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// A publisher that emits before any of the object's `@Published` properties changes.
    ///
    /// Every access returns the same publisher for a given object, as Combine's does, and each
    /// change of any of its `@Published` properties — including those declared in superclasses —
    /// fires it once, before the property's own publisher and before the new value is stored. An
    /// object without `@Published` properties gets the same publisher on every access too, so that
    /// calling ``ObservableObjectPublisher/send()`` on it (in a property's `willSet`, say) reaches
    /// its subscribers.
    ///
    /// The `@Published` properties are found by reflection (`Mirror`), so a class that customizes
    /// its mirror (`CustomReflectable`) must declare its own `objectWillChange` for them to fire it.
    public var objectWillChange: ObservableObjectPublisher {
        ObjectWillChangeRegistry.publisher(for: self)
    }
}

/// Finds or creates the shared `objectWillChange` publisher of an object.
///
/// The publisher is stored in the storage of the object's `@Published` properties (each is a
/// class box shared by every copy of the property wrapper, see ``PublishedBoxBase``), and a
/// property's setter fires the publisher installed in its own box — so a change costs no lookup.
///
/// - The first access on an object walks its stored properties once with `Mirror`, following
///   `superclassMirror` up the class hierarchy, and collects the boxes of its `@Published`
///   properties. The first box arbitrates: a new ``ObservableObjectPublisher`` is installed into it
///   unless a concurrent first access already installed one, and the winner is then installed into
///   every other box.
/// - The walk also records, per class, where the first `@Published` property sits (superclass
///   depth and child index). Later accesses go straight there — one `Mirror` and one child, however
///   many properties the class has — and read the publisher stored in that box.
/// - A class with no `@Published` property is recorded as such; its objects' publishers are kept
///   in ``unpublished``, a table keyed by object identity that holds each object weakly.
enum ObjectWillChangeRegistry {
    /// Where a class's first `@Published` property is, in `Mirror` terms.
    struct Location: Sendable {
        /// How many `superclassMirror` steps from the object's own class.
        var depth: Int
        /// The child's position among that mirror's children.
        var index: Int
    }

    /// Per class (by `ObjectIdentifier` of the dynamic type): the location of its first
    /// `@Published` property, or `nil` if it has none. Only ever grows, by one entry per class.
    static let locations = Protected<[ObjectIdentifier: Location?]>([:])

    /// The shared `objectWillChange` publisher of `object`.
    static func publisher(for object: AnyObject) -> ObservableObjectPublisher {
        let type = ObjectIdentifier(Swift.type(of: object))
        switch locations.withLock({ $0[type] }) {
        case .some(.none):
            return unpublishedPublisher(for: object)
        case .some(.some(let location)):
            if let publisher = box(at: location, in: object)?.objectWillChange {
                return publisher
            }
            return install(in: object, type: type)
        case .none:
            return install(in: object, type: type)
        }
    }

    /// Walks `object` once: collects its `@Published` storages, records where the first one is,
    /// and installs one shared publisher into all of them.
    static func install(in object: AnyObject, type: ObjectIdentifier) -> ObservableObjectPublisher {
        var boxes: [PublishedBoxBase] = []
        var first: Location?
        var mirror: Mirror? = Mirror(reflecting: object)
        var depth = 0
        while let current = mirror {
            for (index, child) in current.children.enumerated() {
                guard let storage = child.value as? any PublishedStorage else { continue }
                boxes.append(storage.publishedBox)
                if first == nil { first = Location(depth: depth, index: index) }
            }
            mirror = current.superclassMirror
            depth += 1
        }
        locations.withLock { $0[type] = .some(first) }
        guard let arbiter = boxes.first else { return unpublishedPublisher(for: object) }
        let publisher = arbiter.install(ObservableObjectPublisher())
        for box in boxes.dropFirst() {
            _ = box.install(publisher)
        }
        return publisher
    }

    /// The publishers of objects that have no `@Published` property to keep one in.
    static let unpublished = Protected(UnpublishedTable())

    /// The publisher of `object`, which has no `@Published` property: the one it got before, or a
    /// new one kept from now on.
    static func unpublishedPublisher(for object: AnyObject) -> ObservableObjectPublisher {
        let (publisher, swept) = unpublished.withLock { $0.publisher(for: object) }
        _ = swept  // the publishers of objects gone, released outside the lock
        return publisher
    }

    /// Per object identity, the object (weakly, to tell it from a later object at the same address)
    /// and its publisher. An entry whose object is gone is dropped when a new object takes its
    /// address, or by a sweep, each time the table has doubled since the last one (at 64 entries
    /// at least): each access costs O(1) amortised, and the publishers of objects gone never
    /// outnumber the larger of 64 and twice the objects still there.
    struct UnpublishedTable {
        struct Entry {
            weak var object: AnyObject?
            let publisher: ObservableObjectPublisher
        }

        var entries: [ObjectIdentifier: Entry] = [:]
        /// The size at which the next sweep happens.
        var sweepAt = 64

        /// The publisher of `object`, and the entries swept out meanwhile (for the caller to
        /// release once the lock is no longer held: releasing a publisher can run its
        /// subscribers' deinitialisers).
        mutating func publisher(for object: AnyObject) -> (ObservableObjectPublisher, [ObjectIdentifier: Entry]) {
            let key = ObjectIdentifier(object)
            if let entry = entries[key], entry.object === object {
                return (entry.publisher, [:])
            }
            var swept: [ObjectIdentifier: Entry] = [:]
            if entries.count >= sweepAt {
                swept = entries
                entries = entries.filter { $0.value.object != nil }
                sweepAt = Swift.max(64, entries.count * 2)
            } else if let stale = entries.removeValue(forKey: key) {
                swept[key] = stale  // an object gone, whose address `object` now has
            }
            let publisher = ObservableObjectPublisher()
            entries[key] = Entry(object: object, publisher: publisher)
            return (publisher, swept)
        }
    }

    /// The storage of the `@Published` property at `location` in `object`, if it is still one.
    static func box(at location: Location, in object: AnyObject) -> PublishedBoxBase? {
        var mirror = Mirror(reflecting: object)
        for _ in 0..<location.depth {
            guard let superclassMirror = mirror.superclassMirror else { return nil }
            mirror = superclassMirror
        }
        let children = mirror.children
        guard let index = children.index(children.startIndex, offsetBy: location.index, limitedBy: children.endIndex),
            index != children.endIndex
        else { return nil }
        return (children[index].value as? any PublishedStorage)?.publishedBox
    }
}
