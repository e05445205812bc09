// What a combining operator (`combineLatest`, `zip`) keeps of its upstreams' values: one slot
// per upstream (the latest value, or a queue of values not yet paired), and the storage that holds
// the slots of one subscription and combines them into the output tuple. `CombiningState` owns it.

// MARK: Slots

/// What a combining operator keeps of one upstream's values.
///
/// The two families differ only here: `combineLatest` keeps the latest value (``LatestSlot``),
/// `zip` a FIFO queue of the values not yet paired (``QueueSlot``).
@usableFromInline
package protocol CombiningSlot {
    /// The upstream's output.
    associatedtype Value
    /// `true` for the latest-value family: a value is reused by every output until replaced, and
    /// an output is owed only when some value arrived since the last output.
    static var keepsLatest: Bool { get }
    /// An empty slot.
    init()
    /// Whether the slot can contribute to an output.
    var hasValue: Bool { get }
    /// Keeps a value that arrived.
    mutating func put(_ value: Value)
    /// The slot's contribution to an output (the latest value, or the oldest queued one, which is
    /// removed). Only called when ``hasValue``.
    mutating func take() -> Value
    /// Forgets every value.
    mutating func removeAll()
}

/// `combineLatest`'s slot: the latest value, reused until replaced.
@usableFromInline
package struct LatestSlot<Value>: CombiningSlot {
    @usableFromInline var value: Value?

    @inlinable package static var keepsLatest: Bool { true }

    @inlinable package init() {}

    @inlinable package var hasValue: Bool { value != nil }

    @inlinable package mutating func put(_ value: Value) { self.value = value }

    @inlinable package mutating func take() -> Value { value.unsafelyUnwrapped }

    @inlinable package mutating func removeAll() { value = nil }
}

/// `zip`'s slot: the values not yet paired, oldest first.
@usableFromInline
package struct QueueSlot<Value>: CombiningSlot {
    /// The queue is `buffer[head...]`; the consumed prefix is dropped once it is large.
    @usableFromInline var buffer = ContiguousArray<Value>()
    @usableFromInline var head = 0

    @inlinable package static var keepsLatest: Bool { false }

    @inlinable package init() {}

    @inlinable package var hasValue: Bool { head < buffer.count }

    /// How many values wait to be paired.
    @inlinable package var count: Int { buffer.count - head }

    @inlinable package mutating func put(_ value: Value) { buffer.append(value) }

    @inlinable
    package mutating func take() -> Value {
        let value = buffer[head]
        head += 1
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 16 && head &* 2 >= buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
        return value
    }

    @inlinable
    package mutating func removeAll() {
        buffer = []
        head = 0
    }
}

// MARK: Storage

/// The slots of one subscription, one per upstream, and the tuple they combine into.
@usableFromInline
package protocol CombiningStorage {
    /// The tuple published downstream.
    associatedtype Output
    /// How many upstreams (2 to 4).
    static var arity: Int { get }
    /// `true` for `combineLatest`, `false` for `zip` (see ``CombiningSlot/keepsLatest``).
    static var keepsLatest: Bool { get }
    /// Empty slots.
    init()
    /// Whether every slot can contribute to an output.
    var isComplete: Bool { get }
    /// Whether the slot of upstream `index` has nothing to contribute.
    func isEmpty(at index: Int) -> Bool
    /// Takes one contribution from every slot. Only called when ``isComplete``.
    mutating func take() -> Output
    /// Forgets every value.
    mutating func removeAll()
}

/// One upstream's entrance into a ``CombiningStorage``: which slot its values go to.
@usableFromInline
package protocol CombiningLane {
    /// The storage the lane belongs to.
    associatedtype Storage: CombiningStorage
    /// The upstream's output.
    associatedtype Value
    /// The upstream's position, from 0.
    static var index: Int { get }
    /// Puts a value into the lane's slot.
    static func put(_ value: Value, into storage: inout Storage)
}

/// The slots of a two-upstream operator.
@usableFromInline
package struct CombiningStorage2<S0: CombiningSlot, S1: CombiningSlot>: CombiningStorage {
    @usableFromInline var s0 = S0()
    @usableFromInline var s1 = S1()

    @inlinable package init() {}
    @inlinable package static var arity: Int { 2 }
    @inlinable package static var keepsLatest: Bool { S0.keepsLatest }
    @inlinable package var isComplete: Bool { s0.hasValue && s1.hasValue }

    @inlinable
    package func isEmpty(at index: Int) -> Bool {
        index == 0 ? !s0.hasValue : !s1.hasValue
    }

    @inlinable
    package mutating func take() -> (S0.Value, S1.Value) { (s0.take(), s1.take()) }

    @inlinable
    package mutating func removeAll() {
        s0.removeAll()
        s1.removeAll()
    }

    /// The first upstream's lane.
    @usableFromInline
    package enum Lane0: CombiningLane {
        @inlinable package static var index: Int { 0 }
        @inlinable package static func put(_ value: S0.Value, into storage: inout CombiningStorage2) {
            storage.s0.put(value)
        }
    }

    /// The second upstream's lane.
    @usableFromInline
    package enum Lane1: CombiningLane {
        @inlinable package static var index: Int { 1 }
        @inlinable package static func put(_ value: S1.Value, into storage: inout CombiningStorage2) {
            storage.s1.put(value)
        }
    }
}

/// The slots of a three-upstream operator.
@usableFromInline
package struct CombiningStorage3<S0: CombiningSlot, S1: CombiningSlot, S2: CombiningSlot>: CombiningStorage {
    @usableFromInline var s0 = S0()
    @usableFromInline var s1 = S1()
    @usableFromInline var s2 = S2()

    @inlinable package init() {}
    @inlinable package static var arity: Int { 3 }
    @inlinable package static var keepsLatest: Bool { S0.keepsLatest }
    @inlinable package var isComplete: Bool { s0.hasValue && s1.hasValue && s2.hasValue }

    @inlinable
    package func isEmpty(at index: Int) -> Bool {
        switch index {
        case 0: return !s0.hasValue
        case 1: return !s1.hasValue
        default: return !s2.hasValue
        }
    }

    @inlinable
    package mutating func take() -> (S0.Value, S1.Value, S2.Value) { (s0.take(), s1.take(), s2.take()) }

    @inlinable
    package mutating func removeAll() {
        s0.removeAll()
        s1.removeAll()
        s2.removeAll()
    }

    /// The first upstream's lane.
    @usableFromInline
    package enum Lane0: CombiningLane {
        @inlinable package static var index: Int { 0 }
        @inlinable package static func put(_ value: S0.Value, into storage: inout CombiningStorage3) {
            storage.s0.put(value)
        }
    }

    /// The second upstream's lane.
    @usableFromInline
    package enum Lane1: CombiningLane {
        @inlinable package static var index: Int { 1 }
        @inlinable package static func put(_ value: S1.Value, into storage: inout CombiningStorage3) {
            storage.s1.put(value)
        }
    }

    /// The third upstream's lane.
    @usableFromInline
    package enum Lane2: CombiningLane {
        @inlinable package static var index: Int { 2 }
        @inlinable package static func put(_ value: S2.Value, into storage: inout CombiningStorage3) {
            storage.s2.put(value)
        }
    }
}

/// The slots of a four-upstream operator.
@usableFromInline
package struct CombiningStorage4<S0: CombiningSlot, S1: CombiningSlot, S2: CombiningSlot, S3: CombiningSlot>:
    CombiningStorage
{
    @usableFromInline var s0 = S0()
    @usableFromInline var s1 = S1()
    @usableFromInline var s2 = S2()
    @usableFromInline var s3 = S3()

    @inlinable package init() {}
    @inlinable package static var arity: Int { 4 }
    @inlinable package static var keepsLatest: Bool { S0.keepsLatest }
    @inlinable package var isComplete: Bool { s0.hasValue && s1.hasValue && s2.hasValue && s3.hasValue }

    @inlinable
    package func isEmpty(at index: Int) -> Bool {
        switch index {
        case 0: return !s0.hasValue
        case 1: return !s1.hasValue
        case 2: return !s2.hasValue
        default: return !s3.hasValue
        }
    }

    @inlinable
    package mutating func take() -> (S0.Value, S1.Value, S2.Value, S3.Value) {
        (s0.take(), s1.take(), s2.take(), s3.take())
    }

    @inlinable
    package mutating func removeAll() {
        s0.removeAll()
        s1.removeAll()
        s2.removeAll()
        s3.removeAll()
    }

    /// The first upstream's lane.
    @usableFromInline
    package enum Lane0: CombiningLane {
        @inlinable package static var index: Int { 0 }
        @inlinable package static func put(_ value: S0.Value, into storage: inout CombiningStorage4) {
            storage.s0.put(value)
        }
    }

    /// The second upstream's lane.
    @usableFromInline
    package enum Lane1: CombiningLane {
        @inlinable package static var index: Int { 1 }
        @inlinable package static func put(_ value: S1.Value, into storage: inout CombiningStorage4) {
            storage.s1.put(value)
        }
    }

    /// The third upstream's lane.
    @usableFromInline
    package enum Lane2: CombiningLane {
        @inlinable package static var index: Int { 2 }
        @inlinable package static func put(_ value: S2.Value, into storage: inout CombiningStorage4) {
            storage.s2.put(value)
        }
    }

    /// The fourth upstream's lane.
    @usableFromInline
    package enum Lane3: CombiningLane {
        @inlinable package static var index: Int { 3 }
        @inlinable package static func put(_ value: S3.Value, into storage: inout CombiningStorage4) {
            storage.s3.put(value)
        }
    }
}

