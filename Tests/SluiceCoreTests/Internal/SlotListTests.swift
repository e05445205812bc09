@testable import SluiceCore
import SluiceTesting
import Testing

/// An element that remembers its name, to read the list's order back.
private final class Child: SlotListElement {
    let name: Int
    var slot: UInt32 = 0
    init(_ name: Int) { self.name = name }
}

extension SlotList where Element == Child {
    /// The live elements' names, in list order.
    fileprivate var names: [Int] { slots.compactMap { $0?.name } }

    /// Every live element's slot is its index.
    fileprivate var slotsAreNumbered: Bool {
        slots.indices.allSatisfy { slots[$0] == nil || slots[$0]!.slot == UInt32($0) }
    }
}

@Suite("SlotList")
struct SlotListTests {
    @Test func appendsInOrderAndNumbersTheSlots() {
        var list = SlotList<Child>()
        #expect(list.isEmpty && list.count == 0)
        let children = (0..<5).map(Child.init)
        for child in children { list.append(child) }
        #expect(list.names == [0, 1, 2, 3, 4])
        #expect(list.count == 5)
        #expect(list.slotsAreNumbered)
    }

    @Test func removingInTheMiddleLeavesAHole() {
        var list = SlotList<Child>()
        let children = (0..<4).map(Child.init)
        for child in children { list.append(child) }
        let removed = list.remove(children[1])
        #expect(removed)
        #expect(list.slots.count == 4)
        #expect(list.slots[1] == nil)
        #expect(list.holes == 1)
        #expect(list.count == 3)
        #expect(list.names == [0, 2, 3])
    }

    @Test func removingTheLastShrinksPastTheHolesBeforeIt() {
        var list = SlotList<Child>()
        let children = (0..<4).map(Child.init)
        for child in children { list.append(child) }
        list.remove(children[1])
        list.remove(children[2])
        #expect(list.slots.count == 4)
        list.remove(children[3])
        #expect(list.slots.count == 1)
        #expect(list.holes == 0)
        list.remove(children[0])
        #expect(list.isEmpty && list.slots.isEmpty)
    }

    @Test func removingTwiceOrAStrangerIsRefused() {
        var list = SlotList<Child>()
        let children = (0..<3).map(Child.init)
        for child in children { list.append(child) }
        let first = list.remove(children[0])
        #expect(first)
        let again = list.remove(children[0])
        #expect(!again)
        let stranger = Child(9)
        stranger.slot = 1   // a slot another element occupies
        let occupied = list.remove(stranger)
        #expect(!occupied)
        stranger.slot = 100  // beyond the end
        let beyond = list.remove(stranger)
        #expect(!beyond)
        #expect(list.names == [1, 2])
    }

    @Test func compactsOnceHolesOutnumberTheLiveElements() {
        var list = SlotList<Child>()
        let children = (0..<6).map(Child.init)
        for child in children { list.append(child) }
        list.remove(children[0])
        list.remove(children[2])
        list.remove(children[3])
        #expect(list.holes == 3 && list.slots.count == 6)   // three holes, three live: not yet
        list.remove(children[4])                             // four holes, two live: compacted
        #expect(list.holes == 0)
        #expect(list.slots.count == 2)
        #expect(list.names == [1, 5])
        #expect(list.slotsAreNumbered)
        // The renumbered elements are still found.
        let removed = list.remove(children[1])
        #expect(removed)
        #expect(list.names == [5])
    }

    @Test func removeAllEmptiesTheListAndReturnsItsSlots() {
        var list = SlotList<Child>()
        let children = (0..<3).map(Child.init)
        for child in children { list.append(child) }
        list.remove(children[1])
        let taken = list.removeAll()
        #expect(taken.compactMap { $0?.name } == [0, 2])
        #expect(list.isEmpty && list.holes == 0)
        let removed = list.remove(children[0])
        #expect(!removed)
    }

    @Test func aSnapshotIsUnaffectedByLaterChanges() {
        var list = SlotList<Child>()
        let children = (0..<3).map(Child.init)
        for child in children { list.append(child) }
        let snapshot = list.slots
        list.remove(children[0])
        list.append(Child(3))
        #expect(snapshot.compactMap { $0?.name } == [0, 1, 2])
        #expect(list.names == [1, 2, 3])
    }

    @Test func randomAppendsAndRemovalsKeepOrderAndStayCompact() {
        var generator = SeededGenerator(seed: 26)
        var list = SlotList<Child>()
        var model: [Child] = []
        var next = 0
        for _ in 0..<20_000 {
            if model.isEmpty || Int.random(in: 0..<5, using: &generator) < 2 {
                let child = Child(next)
                next += 1
                list.append(child)
                model.append(child)
            } else {
                let child = model.remove(at: Int.random(in: 0..<model.count, using: &generator))
                let removed = list.remove(child)
                #expect(removed)
            }
            #expect(list.count == model.count)
            #expect(list.holes <= list.count)
            #expect(list.slots.last.map { $0 != nil } ?? true)
        }
        #expect(list.names == model.map(\.name))
        #expect(list.slotsAreNumbered)
    }
}
