import Synchronization

/// The floor for `CombineIdentifier()`: one relaxed atomic increment per identifier.
func combineIdentifierLoop(_ n: Int) -> Int {
    let counter = Atomic<UInt64>(0)
    var distinct = 0
    var previous = counter.add(1, ordering: .relaxed).newValue
    for _ in 0..<n {
        let identifier = counter.add(1, ordering: .relaxed).newValue
        if identifier != previous { distinct &+= 1 }
        previous = identifier
    }
    return distinct
}
