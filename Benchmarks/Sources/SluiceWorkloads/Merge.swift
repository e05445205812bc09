#if HAS_MERGE
import SluiceCore

/// Two subjects merged into one sink; `n` values sent to them alternately.
func mergePump(_ n: Int) -> Int {
    var sum = 0
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let cancellable = a.merge(with: b).sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        if value & 1 == 0 { a.send(value) } else { b.send(value) }
    }
    cancellable.cancel()
    return sum
}
#endif
