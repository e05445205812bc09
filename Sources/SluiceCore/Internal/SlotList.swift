/// An element of a ``SlotList``: an object that knows its slot in the list.
///
/// The list writes ``slot`` when it appends or moves the element; the element's owner reads it only
/// through the list (``SlotList/remove(_:)``), with whatever lock guards the list held.
@usableFromInline
package protocol SlotListElement: AnyObject {
    /// The element's index in the list's ``SlotList/slots``. Four bytes (four billion elements), so
    /// that a subscription's small fields can share its eight-byte word.
    var slot: UInt32 { get set }
}

/// An ordered list of live objects in which adding and removing one cost O(1) amortised, however
/// many there are: the children of a parent that must be visited in the order they arrived (a
/// subject's subscriptions, the subscribers waiting for a `Future`'s result, the subscribers of a
/// `Timer` publisher).
///
/// The elements sit in ``slots`` in insertion order, each knowing its index (``SlotListElement/slot``).
/// Removing one empties its slot (a hole, a null reference) — or, when it is the last, shrinks the
/// array past it and past any holes before it, so the last slot always holds an element and an
/// empty list is an empty array. Once holes outnumber the live elements, ``compact()`` removes
/// them, keeping the order and renumbering the slots; the removals since the last compaction pay
/// for it. So holes never outnumber the elements: the array is at most twice as long as the list.
///
/// A visitor takes ``slots`` as a snapshot (one retain; nothing copied) and skips its holes: an
/// element removed meanwhile is still in the snapshot, one added meanwhile is not. A change while
/// a snapshot is held copies the array once.
///
/// A value type kept behind its owner's lock; nothing here calls out.
@usableFromInline
package struct SlotList<Element: SlotListElement> {
    /// The elements in insertion order, `nil` where one was removed. The last slot is never `nil`.
    @usableFromInline
    package var slots = ContiguousArray<Element?>()

    /// How many slots are `nil`.
    @usableFromInline
    package var holes = 0

    @inlinable
    package init() {}

    /// How many elements are in the list.
    @inlinable
    package var count: Int { slots.count &- holes }

    /// `true` when the list holds no element (its array is then empty too).
    @inlinable
    package var isEmpty: Bool { slots.isEmpty }

    /// Adds `element` at the end and tells it its slot.
    @inlinable
    package mutating func append(_ element: Element) {
        element.slot = UInt32(truncatingIfNeeded: slots.count)
        slots.append(element)
    }

    /// Removes `element` if it is in the list, in O(1) amortised. Returns `false` when it is not
    /// (removed already, or never added).
    @inlinable
    @discardableResult
    package mutating func remove(_ element: Element) -> Bool {
        let index = Int(element.slot)
        guard index < slots.count, slots[index] === element else { return false }
        if index == slots.count &- 1 {
            slots.removeLast()
            while let last = slots.last, last == nil {
                slots.removeLast()
                holes &-= 1
            }
        } else {
            slots[index] = nil
            holes &+= 1
        }
        if holes > slots.count &- holes { compact() }
        return true
    }

    /// Empties the list and returns its slots (holes included), for the caller to visit once the
    /// lock is released.
    @inlinable
    package mutating func removeAll() -> ContiguousArray<Element?> {
        defer {
            slots = []
            holes = 0
        }
        return slots
    }

    /// Removes the holes, keeping the elements' order and renumbering their slots.
    @inlinable
    package mutating func compact() {
        var kept = 0
        for index in slots.indices {
            guard let element = slots[index] else { continue }
            if kept != index {
                slots.swapAt(kept, index)
                element.slot = UInt32(truncatingIfNeeded: kept)
            }
            kept &+= 1
        }
        slots.removeLast(slots.count &- kept)
        holes = 0
    }
}
