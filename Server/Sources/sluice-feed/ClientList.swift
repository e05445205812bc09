/// The clients of an engine that feeds each client its own sequence in a loop: their handles in
/// the order they came, each under an id to leave by.
///
/// Kept in an array so that the publisher takes a copy of it under the engine's lock in constant
/// time (copy on write) and loops over it outside the lock; a client leaving costs a search.
struct ClientList<Handle> {
    private(set) var entries: [(id: Int, handle: Handle)] = []
    private var nextID = 0
    /// Set by the engine's `finish()`: clients that come later are finished at once.
    var isFinished = false

    /// Adds a client; returns its id.
    mutating func add(_ handle: Handle) -> Int {
        nextID += 1
        entries.append((nextID, handle))
        return nextID
    }

    /// Removes the client with `id`, if still there.
    mutating func remove(_ id: Int) {
        if let index = entries.firstIndex(where: { $0.id == id }) { entries.remove(at: index) }
    }

    /// Marks the list finished and empties it; returns the handles it held, to finish them.
    mutating func finishAll() -> [Handle] {
        isFinished = true
        defer { entries = [] }
        return entries.map(\.handle)
    }
}

extension ClientList: Sendable where Handle: Sendable {}
