#if HAS_VALUES
import SluiceCore

/// Two sequence publishers zipped, consumed by `for await` through `.values`: one request per pair,
/// which the zip passes to both sequences.
func zippedValues(_ n: Int) async -> Int {
    var sum = 0
    for await (a, b) in (0..<n).publisher.zip((0..<n).publisher).values {
        sum = sum &* 31 &+ a &+ b
    }
    return sum
}
#endif
