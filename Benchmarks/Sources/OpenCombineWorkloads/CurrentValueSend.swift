import OpenCombine

/// `CurrentValueSubject.send` of `n` values to one sink (which also receives the initial 0).
func currentValueSend(_ n: Int) -> Int {
    var sum = 0
    let subject = CurrentValueSubject<Int, Never>(0)
    let cancellable = subject.sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        subject.send(value)
    }
    cancellable.cancel()
    return sum &+ subject.value
}
