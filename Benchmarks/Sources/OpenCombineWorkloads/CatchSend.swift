import OpenCombine

/// `PassthroughSubject.send` of `n` values through `catch` (its handler never called: the subject
/// does not fail) and `retry(1)` to one sink: the cost error handling adds to every value.
func catchSend(_ n: Int) -> Int {
    struct Failed: Error {}
    var sum = 0
    let subject = PassthroughSubject<Int, Failed>()
    let cancellable = subject
        .retry(1)
        .catch { _ in Just(-1) }
        .sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        subject.send(value)
    }
    cancellable.cancel()
    return sum
}
