#if HAS_VALUES
import OpenCombine

/// `(0..<n).publisher.values` consumed by `for await`: the publisher → AsyncSequence bridge, which
/// requests one value at a time.
func valuesForAwait(_ n: Int) async -> Int {
    var sum = 0
    for await value in (0..<n).publisher.values {
        sum = sum &* 31 &+ value
    }
    return sum
}
#endif
