/// A first-in first-out queue of values waiting for their turn to be delivered downstream, for the
/// state machines of operators that merge several inner publishers (`flatMap`, `switchToLatest`).
///
/// An array and a read index: appending and popping are O(1) and, once the storage has grown,
/// allocate nothing; the storage is reused whenever the queue empties.
@usableFromInline
package struct DeliveryQueue<Element> {
    @usableFromInline var storage = ContiguousArray<Element>()
    @usableFromInline var head = 0

    @inlinable
    package init() {}

    /// `true` when nothing waits.
    @inlinable
    package var isEmpty: Bool { head == storage.count }

    /// How many values wait.
    @inlinable
    package var count: Int { storage.count - head }

    /// Adds a value at the back.
    @inlinable
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the value at the front, if any.
    @inlinable
    package mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        }
        return element
    }

    /// Drops every waiting value (and the storage, so that nothing stays retained).
    @inlinable
    package mutating func removeAll() {
        storage = []
        head = 0
    }

    /// Drops the waiting values that match `shouldBeRemoved`, keeping the others in order.
    @inlinable
    package mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        var kept = ContiguousArray<Element>()
        for index in head..<storage.count where !shouldBeRemoved(storage[index]) {
            kept.append(storage[index])
        }
        storage = kept
        head = 0
    }
}
