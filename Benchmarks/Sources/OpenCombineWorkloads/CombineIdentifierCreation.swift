import OpenCombine

/// `CombineIdentifier()`, `n` times; the checksum counts identifiers unlike the one before.
func combineIdentifierCreation(_ n: Int) -> Int {
    var distinct = 0
    var previous = CombineIdentifier()
    for _ in 0..<n {
        let identifier = CombineIdentifier()
        if identifier != previous { distinct &+= 1 }
        previous = identifier
    }
    return distinct
}
