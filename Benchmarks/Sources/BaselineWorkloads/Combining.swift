/// `merge` by hand: both sources call the same observer.
func mergeLoop(_ n: Int) -> Int {
    var sum = 0
    let observer: (Int) -> Void = { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        observer(value)
    }
    return sum
}

/// `zip` by hand: the value from the first source waits for one from the second.
func zipLoop(_ n: Int) -> Int {
    var sum = 0
    var pending: [Int] = []
    var next = 0
    for value in 0..<n {
        if value & 1 == 0 {
            pending.append(value)
        } else if next < pending.count {
            sum = sum &* 31 &+ (pending[next] &* 3 &+ value)
            next += 1
            if next == pending.count {
                pending.removeAll(keepingCapacity: true)
                next = 0
            }
        }
    }
    return sum
}

/// `combineLatest` by hand: keep the latest of each source; once both have one, combine.
func combineLatestLoop(_ n: Int) -> Int {
    var sum = 0
    var latestA: Int?
    var latestB: Int?
    for value in 0..<n {
        if value & 1 == 0 { latestA = value } else { latestB = value }
        if let a = latestA, let b = latestB { sum = sum &* 31 &+ (a &* 3 &+ b) }
    }
    return sum
}
