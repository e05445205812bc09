#if HAS_ZIP
import OpenCombine

/// Two subjects zipped, each pair mapped to one number, into one sink; `n` values sent to them
/// alternately (`n / 2` pairs). The zip's subscriber is then `map`'s, a struct.
func zipMapPump(_ n: Int) -> Int {
    var sum = 0
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let cancellable = a.zip(b).map { $0.0 &* 3 &+ $0.1 }.sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        if value & 1 == 0 { a.send(value) } else { b.send(value) }
    }
    cancellable.cancel()
    return sum
}
#endif
