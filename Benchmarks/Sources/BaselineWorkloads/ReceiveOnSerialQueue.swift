import Dispatch

/// `receive(on:)` a serial queue by hand: one `DispatchQueue.async` per value, its closure folding
/// the value into a total that lives on the queue; then a `sync` waits for them all.
func receiveOnSerialQueueLoop(_ n: Int) -> Int {
    final class Total: @unchecked Sendable {
        var sum = 0  // touched only on the queue, then read after its `sync`
    }
    let total = Total()
    let queue = DispatchQueue(label: "receiveOnSerialQueueLoop")
    for value in 0..<n {
        queue.async { total.sum = total.sum &* 31 &+ value }
    }
    return queue.sync { total.sum }
}
