import WorkloadSupport

/// Ten `+ 1`s per element as a hand-written loop.
func deepMapLoop(_ n: Int) -> Int {
    var sum = 0
    for value in 0..<n {
        var mapped = value
        for _ in 0..<10 { mapped &+= 1 }
        sum = sum &* 31 &+ mapped
    }
    return sum
}

/// Ten `+ 1`s per element in the body of a plain `for await` loop over an `AsyncStream`.
func deepMapForAwait(_ n: Int) async -> Int {
    var sum = 0
    for await value in streamOfRange(n) {
        var mapped = value
        for _ in 0..<10 { mapped &+= 1 }
        sum = sum &* 31 &+ mapped
    }
    return sum
}

/// Ten of the standard library's AsyncSequence `map`s, then `for await`.
func deepMapAsyncOperators(_ n: Int) async -> Int {
    var sum = 0
    let mapped = (0..<n).async
        .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
        .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    for await value in mapped {
        sum = sum &* 31 &+ value
    }
    return sum
}
