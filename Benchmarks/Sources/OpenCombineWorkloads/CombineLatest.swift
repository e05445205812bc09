#if HAS_COMBINELATEST
import OpenCombine

/// Two subjects combined with `combineLatest` into one sink; `n` values sent to them alternately
/// (`n - 1` combinations).
func combineLatestPump(_ n: Int) -> Int {
    var sum = 0
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let cancellable = a.combineLatest(b).sink { sum = sum &* 31 &+ ($0.0 &* 3 &+ $0.1) }
    for value in 0..<n {
        if value & 1 == 0 { a.send(value) } else { b.send(value) }
    }
    cancellable.cancel()
    return sum
}
#endif
