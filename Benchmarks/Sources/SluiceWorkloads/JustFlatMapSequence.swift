#if HAS_FLATMAP
import SluiceCore

/// `Just(n).append(Empty())` flat-mapped to the sequence `0..<n`, into a sink: the request that
/// makes `Just` send its value comes through `Concatenate`'s subscription, and the sequence is
/// subscribed to from inside it; its `n` elements follow.
func justFlatMapSequence(_ n: Int) -> Int {
    var sum = 0
    _ = Just(n)
        .append(Empty())
        .flatMap { (0..<$0).publisher }
        .sink { sum = sum &* 31 &+ $0 }
    return sum
}
#endif
