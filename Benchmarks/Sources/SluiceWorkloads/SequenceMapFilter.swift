import SluiceCore

/// `sequence → map → filter → sink`, as users write it.
///
/// On a `Publishers.Sequence`, `map` and `filter` are Apple's eager overloads: each builds an
/// array and returns a new `Publishers.Sequence`, so only the final pump goes through a
/// subscription.
func sequenceMapFilter(_ n: Int) -> Int {
    var sum = 0
    let cancellable = (0..<n).publisher
        .map { $0 &* 3 }
        .filter { $0 & 1 == 0 }
        .sink { sum = sum &* 31 &+ $0 }
    cancellable.cancel()
    return sum
}
