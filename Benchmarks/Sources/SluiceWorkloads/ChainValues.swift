#if HAS_VALUES
import SluiceCore

/// A sequence publisher through `tryMap`, `removeDuplicates` and `handleEvents`, consumed by
/// `for try await` through `.values`: one request per value, passed up through each operator.
func chainValues(_ n: Int) async -> Int {
    var sum = 0
    do {
        let chain = (0..<n).publisher.tryMap { $0 &+ 1 }.removeDuplicates().handleEvents(receiveOutput: { _ in })
        for try await value in chain.values {
            sum = sum &* 31 &+ value
        }
    } catch {}
    return sum
}
#endif
