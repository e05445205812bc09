#if HAS_VALUES
import SluiceCore

/// A sequence publisher through `handleEvents` (which keeps the sequence from taking in the next
/// two operators), `dropFirst`, `prefix` and `collect(1)`, consumed by `for await` through
/// `.values`: one request per value, which the last three pass up as it is.
func forwardedValues(_ n: Int) async -> Int {
    var sum = 0
    for await batch in (0...n).publisher.handleEvents(receiveOutput: { _ in }).dropFirst().prefix(n).collect(1).values {
        sum = sum &* 31 &+ batch[0]
    }
    return sum
}
#endif
