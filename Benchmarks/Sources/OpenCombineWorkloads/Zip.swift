#if HAS_ZIP
import OpenCombine

/// Two subjects zipped into one sink; `n` values sent to them alternately (`n / 2` pairs).
func zipPump(_ n: Int) -> Int {
    var sum = 0
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let cancellable = a.zip(b).sink { sum = sum &* 31 &+ ($0.0 &* 3 &+ $0.1) }
    for value in 0..<n {
        if value & 1 == 0 { a.send(value) } else { b.send(value) }
    }
    cancellable.cancel()
    return sum
}
#endif
