import WorkloadSupport

/// `flatMap { Just($0) }` as a hand-written loop: the identity.
func flatMapJustLoop(_ n: Int) -> Int {
    var sum = 0
    for value in 0..<n {
        sum = sum &* 31 &+ value
    }
    return sum
}

/// `flatMap { Just($0) }` as plain `for await` loops: over an `AsyncStream` of the elements, and an
/// inner one over each element's `AsyncJust`.
func flatMapJustForAwait(_ n: Int) async -> Int {
    var sum = 0
    for await value in streamOfRange(n) {
        for await inner in AsyncJust(value) {
            sum = sum &* 31 &+ inner
        }
    }
    return sum
}

/// The standard library's AsyncSequence `flatMap { AsyncJust($0) }`, then `for await`.
func flatMapJustAsyncOperators(_ n: Int) async -> Int {
    var sum = 0
    for await value in (0..<n).async.flatMap({ AsyncJust($0) }) {
        sum = sum &* 31 &+ value
    }
    return sum
}
