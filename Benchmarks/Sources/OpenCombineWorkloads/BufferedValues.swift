#if HAS_VALUES
import OpenCombine

/// `(0..<n).publisher.buffer(…).values` consumed by `for await`: the bridge asks the buffer for one
/// value at a time, and the buffer keeps itself full from the sequence.
func bufferedValues(_ n: Int) async -> Int {
    var sum = 0
    for await value in (0..<n).publisher.buffer(size: 16, prefetch: .keepFull, whenFull: .dropNewest).values {
        sum = sum &* 31 &+ value
    }
    return sum
}
#endif
