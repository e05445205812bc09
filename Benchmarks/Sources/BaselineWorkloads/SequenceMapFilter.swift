import WorkloadSupport

/// `sequence → map → filter → sink` as a hand-written loop.
func sequenceMapFilterLoop(_ n: Int) -> Int {
    var sum = 0
    for value in 0..<n {
        let mapped = value &* 3
        if mapped & 1 == 0 { sum = sum &* 31 &+ mapped }
    }
    return sum
}

/// `sequence → map → filter → sink` as a plain `for await` loop over an `AsyncStream` of the
/// elements, the work in its body.
func sequenceMapFilterForAwait(_ n: Int) async -> Int {
    var sum = 0
    for await value in streamOfRange(n) {
        let mapped = value &* 3
        if mapped & 1 == 0 { sum = sum &* 31 &+ mapped }
    }
    return sum
}

/// `sequence → map → filter → sink` as `for await` over the standard library's AsyncSequence
/// `map` and `filter`.
func sequenceMapFilterAsyncOperators(_ n: Int) async -> Int {
    var sum = 0
    for await value in (0..<n).async.map({ $0 &* 3 }).filter({ $0 & 1 == 0 }) {
        sum = sum &* 31 &+ value
    }
    return sum
}
